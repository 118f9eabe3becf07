import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { MEASUREMENT_NICE, threadIdOf } from './measurementPriority';

/** The nice value of a thread (field 19 of its /proc stat). */
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

test('threadIdOf reads the thread id of /proc/thread-self', () => {
  assert.equal(threadIdOf('4242/task/4250'), 4250);
  assert.equal(threadIdOf('4242'), null);
  assert.equal(threadIdOf('self/task/x'), null);
});

test('lowerThisThread lowers the calling thread, not the process', { skip: process.platform !== 'linux' }, async () => {
  const before = niceOf('/proc/self/stat');
  const tsx = import.meta.resolve('tsx/esm/api');
  const mod = new URL('./measurementPriority.ts', import.meta.url).href;
  const src = `const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(mod)}); }).then((m) => {
      const lowered = m.lowerThisThread();
      const stat = require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8');
      parentPort.postMessage({ lowered, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) });
    });`;
  const worker = new Worker(src, { eval: true });
  const got = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  assert.deepEqual(got, { lowered: true, nice: Math.max(MEASUREMENT_NICE, before) });
  assert.equal(niceOf('/proc/self/stat'), before);
});
