import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pino } from 'pino';
import { localMediaWorker } from './localMediaWorker';

test("a media worker's channel is the socket mediasoup writes its requests to, and is gone once the worker is", { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const socket = media.channel!;
  const write = socket.write;
  let writes = 0;
  socket.write = ((...args: Parameters<typeof write>) => (writes++, write.apply(socket, args))) as typeof write;
  await media.createRouter();
  socket.write = write;
  assert.equal(writes, 1, 'the createRouter request');
  media.close();
  assert.equal(media.channel, null);
});

test("the media worker's environment holds none of the server's secrets", { timeout: 20_000 }, async (t) => {
  process.env.OPERATOR_TOKEN_FOR_TEST = 'must not reach the worker';
  const { media } = await localMediaWorker(pino({ level: 'silent' })).finally(() => delete process.env.OPERATOR_TOKEN_FOR_TEST);
  t.after(() => media.close());
  const environ = readFileSync(`/proc/${media.pid}/environ`, 'utf8').split('\0');
  assert.ok(environ.some((v) => v.startsWith('MEDIASOUP_VERSION=')), 'the worker still gets the version it checks');
  assert.ok(!environ.some((v) => v.startsWith('OPERATOR_TOKEN_FOR_TEST=')));
});
