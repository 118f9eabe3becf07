import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { logChannelDrops } from './channelDropLog';
import { noDrops } from './mediaWorker';

test('drops are logged once an interval with the counts since the last line; an interval without drops says nothing', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const lines: { dropped: unknown }[] = [];
  const log = pino(new Writable({ write: (l: Buffer, _e, done) => (lines.push(JSON.parse(l.toString()) as { dropped: unknown }), done()) }));
  const drops = noDrops();
  const stop = logChannelDrops(drops, log, 1000);
  drops.red += 5;
  t.mock.timers.tick(1000);
  t.mock.timers.tick(1000);
  drops.red += 1;
  drops.yellow += 2;
  t.mock.timers.tick(1000);
  stop();
  drops.yellow += 1;
  t.mock.timers.tick(1000);
  return new Promise<void>((resolve) => setImmediate(() => {
    assert.deepEqual(lines.map((l) => l.dropped), [{ green: 0, yellow: 0, red: 5 }, { green: 0, yellow: 2, red: 1 }]);
    resolve();
  }));
});
