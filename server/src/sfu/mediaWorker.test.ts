import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import pino from 'pino';
import { localMediaWorker } from './localMediaWorker';

test('a media worker that died and was restarted leaves no signal listener behind (its dead worker is not kept)', { timeout: 30_000 }, async (t) => {
  const before = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const running = { int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') };
  for (let i = 0; i < 3; i++) {
    const restarted = once(media, 'restarted');
    process.kill(media.pid!, 'SIGKILL');
    await restarted;
  }
  // One worker runs, as before the deaths: its listeners, and none of the three dead ones'.
  assert.deepEqual({ int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') }, running);
  media.close();
  assert.deepEqual({ int: process.listenerCount('SIGINT'), term: process.listenerCount('SIGTERM') }, before);
});
