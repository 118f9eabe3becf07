import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { ORIGIN_REFUSAL, refuseViewers } from './viewerRefusal';

test('an origin closes a player socket at once with the reason', async () => {
  const refusal = refuseViewers();
  const server = createServer();
  server.on('upgrade', refusal.handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`);
    const [code, reason] = (await once(ws, 'close')) as [number, Buffer];
    assert.equal(code, 1008);
    assert.equal(reason.toString(), ORIGIN_REFUSAL);
    assert.ok(Buffer.byteLength(ORIGIN_REFUSAL) <= 123);
  } finally {
    refusal.close();
    server.close();
  }
});
