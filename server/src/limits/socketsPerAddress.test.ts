import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { createHttpServer, routeUpgrades } from '../http/httpServer';
import { createLogger } from '../log';
import { LimitRejections } from './rejections';
import { addressKey, SocketsPerAddress } from './socketsPerAddress';

test('clients are counted by IPv4 address, or by IPv6 /64', () => {
  assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey(undefined), 'unknown');
});

test('each address gets its own places, per kind; a refusal is counted; a release frees one place once', () => {
  const rejections = new LimitRejections();
  const sockets = new SocketsPerAddress({ signaling: 2, dashboard: 1 }, rejections);
  const a1 = sockets.take('192.0.2.1', 'signaling')!;
  assert.ok(sockets.take('192.0.2.1', 'signaling'));
  assert.equal(sockets.take('192.0.2.1', 'signaling'), null);
  assert.ok(sockets.take('192.0.2.1', 'dashboard'), 'players from an address do not take its dashboard place');
  assert.equal(sockets.take('192.0.2.1', 'dashboard'), null);
  assert.equal(rejections.count('dashboard_sockets_per_address'), 1);
  assert.equal(sockets.take('2001:db8:1:2::5', 'signaling') !== null, true);
  assert.equal(sockets.take('2001:db8:1:2::6', 'signaling') !== null, true);
  assert.equal(sockets.take('2001:db8:1:2::7', 'signaling'), null, 'same /64');
  assert.equal(rejections.count('sockets_per_address'), 2);
  assert.deepEqual(sockets.open(), { signaling: 4, dashboard: 1 });
  a1();
  a1();
  assert.deepEqual(sockets.open(), { signaling: 3, dashboard: 1 });
  assert.ok(sockets.take('192.0.2.1', 'signaling'));
  assert.equal(sockets.take('192.0.2.1', 'signaling'), null);
});

// The guard on a real HTTP server with real WebSockets.
const MAX = 2;
const limiter = new SocketsPerAddress({ signaling: MAX, dashboard: MAX }, new LimitRejections());
const wss = new WebSocketServer({ noServer: true });
let server: Server;
let url: string;

before(async () => {
  server = createHttpServer([], '/nonexistent', createLogger('silent'));
  routeUpgrades(server, { '/ws': limiter.guard('signaling', (req, socket, head) => wss.handleUpgrade(req, socket, head, () => {})) }, createLogger('silent'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`;
});

after(async () => {
  for (const ws of wss.clients) ws.terminate();
  server.close();
  await once(server, 'close');
});

async function open(): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  return ws;
}

/** Sends an upgrade request on a raw connection and reads what comes back until the server closes it. */
async function refusedUpgrade(): Promise<string> {
  const port = Number(new URL(url).port);
  const s: Socket = connect(port, '127.0.0.1');
  await once(s, 'connect');
  s.write(
    'GET /ws HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  let got = '';
  s.setEncoding('latin1').on('data', (d: string) => (got += d));
  // The client never closes: the server must.
  await once(s, 'close');
  return got;
}

test('past the limit an upgrade gets 429 with Retry-After and an error body, and its connection is closed; a closed socket frees its place', { timeout: 10_000 }, async () => {
  const admitted = [await open(), await open()];
  const answer = await refusedUpgrade();
  assert.match(answer, /^HTTP\/1\.1 429 Too Many Requests\r\n/);
  assert.match(answer, /\r\nretry-after: \d+\r\n/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'unavailable');
  assert.match(body.error.message, /at most 2 signaling connections/);
  assert.deepEqual(limiter.open(), { signaling: MAX, dashboard: 0 });
  admitted[0]!.close();
  while (limiter.open().signaling === MAX) await new Promise((r) => setTimeout(r, 10));
  admitted.push(await open());
  for (const ws of admitted) ws.close();
});
