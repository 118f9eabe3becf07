import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, test } from 'node:test';
import { freePort, freeRtcPort } from './freePorts';

/** Another server's media port: its UDP taken, its TCP free (what a TCP-only check would hand out). */
let held: Socket;
let heldPort: number;

before(async () => {
  held = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    held.once('error', reject);
    held.bind(0, '127.0.0.1', () => resolve());
  });
  heldPort = held.address().port;
});

after(() => held.close());

test('a media port is free for UDP as well as TCP: a port another process holds for UDP is passed over', async () => {
  const proposed: number[] = [];
  const port = await freeRtcPort(1, async () => {
    const p = proposed.length === 0 ? heldPort : await freePort();
    proposed.push(p);
    return p;
  });
  assert.equal(proposed[0], heldPort);
  assert.notEqual(port, heldPort);
  assert.equal(proposed.length, 2);
});

test("with two workers the second worker's port must be free too", async () => {
  await assert.rejects(freeRtcPort(2, async () => heldPort - 1), /no media port free for TCP and UDP \(2 worker\(s\)\)/);
});
