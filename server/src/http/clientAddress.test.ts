import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { clientAddress, parseTrustedProxies } from './clientAddress';

/** What a real server on 127.0.0.1 takes as the client of a request with these headers. */
async function seenBy(trusted: string, headers: Record<string, string | string[]>): Promise<string | undefined> {
  const proxies = parseTrustedProxies(trusted);
  let seen: string | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    seen = clientAddress(req, proxies);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => request({ host: '127.0.0.1', port, headers }, (res) => res.resume().on('end', resolve)).on('error', reject).end());
  await new Promise((r) => server.close(r));
  return seen;
}

test('without trusted proxies X-Forwarded-For is ignored: the socket\'s peer is the client', async () => {
  assert.equal(await seenBy('', { 'x-forwarded-for': '203.0.113.9' }), '127.0.0.1');
  assert.equal(await seenBy('10.0.0.0/8', { 'x-forwarded-for': '203.0.113.9' }), '127.0.0.1', 'the peer is not a trusted proxy');
});

test('from a trusted proxy the rightmost untrusted X-Forwarded-For address is the client', async () => {
  assert.equal(await seenBy('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }), '203.0.113.9');
  assert.equal(await seenBy('127.0.0.0/8', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' }), '203.0.113.9', 'a client-written entry at the left is not believed');
  assert.equal(await seenBy('127.0.0.1,10.0.0.0/8', { 'x-forwarded-for': '198.51.100.1, 203.0.113.9, 10.1.2.3' }), '203.0.113.9', 'a chain of trusted proxies');
  assert.equal(await seenBy('127.0.0.1', { 'x-forwarded-for': ['198.51.100.1', '203.0.113.9'] }), '203.0.113.9', 'repeated headers are one list');
  assert.equal(await seenBy('127.0.0.1', { 'x-forwarded-for': '2001:db8::7' }), '2001:db8::7');
  assert.equal(await seenBy('127.0.0.1', { 'x-forwarded-for': 'garbage' }), '127.0.0.1', 'not an address: the proxy itself');
  assert.equal(await seenBy('127.0.0.1', {}), '127.0.0.1', 'no header: the proxy itself');
});

test('a trusted-proxy list entry that is not an address or CIDR block is refused, naming it', () => {
  for (const bad of ['10.0.0.0/33', 'proxy.example.org', '10.0.0.1/8/2', '::1/129']) {
    assert.throws(() => parseTrustedProxies(`127.0.0.1,${bad}`), new RegExp(bad.replace(/[./]/g, '\\$&')));
  }
});
