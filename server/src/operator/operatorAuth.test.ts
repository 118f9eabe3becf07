import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { RequestError } from '../errors';
import { generateToken, OperatorAuth, type TokenScope } from './operatorAuth';

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

test('scoped tokens: each opens its own scope only; the operator token opens every scope', () => {
  const auth = new OperatorAuth(TOKEN, { metrics: 'metrics-token-0123456789', router: 'router-token-0123456789' });
  const opens = (token: string, scope?: TokenScope) => {
    try {
      auth.check(req(`Bearer ${token}`), scope);
      return true;
    } catch (e) {
      assert.ok(e instanceof RequestError && e.code === 'unauthorized');
      return false;
    }
  };
  assert.deepEqual(
    [TOKEN, 'metrics-token-0123456789', 'router-token-0123456789', 'wrong-token-0123456789'].map((t) => [opens(t), opens(t, 'metrics'), opens(t, 'router')]),
    [
      [true, true, true],
      [false, true, false],
      [false, false, true],
      [false, false, false],
    ],
  );
  assert.throws(() => auth.check(req(), 'metrics'), /METRICS_TOKEN or OPERATOR_TOKEN/);
  assert.throws(() => auth.check(req('Bearer router-token-0123456789'), 'metrics'), /this route takes METRICS_TOKEN or OPERATOR_TOKEN/);
});

test('a scope without its token configured takes the operator token only', () => {
  const auth = new OperatorAuth(TOKEN, { metrics: undefined });
  assert.equal(auth.matches(TOKEN, 'metrics'), true);
  assert.equal(auth.matches('', 'metrics'), false);
  assert.equal(auth.matches('anything-at-all-long', 'router'), false);
});

test('guard with a scope: the scope token reaches the handler, other tokens do not', async () => {
  const auth = new OperatorAuth(TOKEN, { router: 'router-token-0123456789' });
  let ran = 0;
  const [route] = auth.guard([{ method: 'POST', path: '/api/x', handler: () => ++ran }], 'router');
  assert.throws(() => route!.handler(req('Bearer metrics-token-0123456789'), {}));
  assert.equal(await route!.handler(req('Bearer router-token-0123456789'), {}), 1);
  assert.equal(await route!.handler(req(`Bearer ${TOKEN}`), {}), 2);
});

test('generated tokens are long and distinct', () => {
  const a = generateToken();
  assert.ok(a.length >= 32);
  assert.notEqual(a, generateToken());
});
