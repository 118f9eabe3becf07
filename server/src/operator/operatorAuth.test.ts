import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { RequestError } from '../errors';
import { generateToken, OperatorAuth } from './operatorAuth';

const TOKEN = 'correct-horse-battery-staple';
const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

test('matches only the exact token, whatever the candidate length', () => {
  const auth = new OperatorAuth(TOKEN);
  assert.equal(auth.matches(TOKEN), true);
  for (const wrong of ['', 'c', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), 'x'.repeat(5000)]) assert.equal(auth.matches(wrong), false, wrong);
});

test('check: a bearer credential with the token passes; anything else is a 401 RequestError', () => {
  const auth = new OperatorAuth(TOKEN);
  auth.check(req(`Bearer ${TOKEN}`));
  auth.check(req(`bearer ${TOKEN}`));
  for (const header of [undefined, '', TOKEN, `Basic ${TOKEN}`, 'Bearer ', `Bearer ${TOKEN} extra`, 'Bearer wrong']) {
    assert.throws(
      () => auth.check(req(header)),
      (e: unknown) => e instanceof RequestError && e.code === 'unauthorized',
      String(header),
    );
  }
});

test('guard: the handler never runs without the token', async () => {
  const auth = new OperatorAuth(TOKEN);
  let ran = 0;
  const [route] = auth.guard([{ method: 'POST', path: '/api/x', handler: () => ++ran }]);
  assert.throws(() => route!.handler(req(), {}));
  assert.equal(ran, 0);
  assert.equal(await route!.handler(req(`Bearer ${TOKEN}`), {}), 1);
});

test('generated tokens are long and distinct', () => {
  const a = generateToken();
  assert.ok(a.length >= 32);
  assert.notEqual(a, generateToken());
});
