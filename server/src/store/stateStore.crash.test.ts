/**
 * kill -9 in the middle of a write: a child process saves large states
 * (about 1 MB) in a loop and is killed with SIGKILL at a random moment, many
 * times over the same file. Every time, the store must open with either the
 * last state the child reported saved or the one it was writing, complete.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { LOOP_STREAMS, numberedState } from './saveLoop.testChild';
import { StateStore } from './stateStore';

const KILLS = 30;
/** The kill comes this long (uniformly random) after the child's first save. */
const MAX_KILL_DELAY_MS = 300;
const CHILD = fileURLToPath(new URL('./saveLoop.testChild.ts', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'pels-store-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the child until a random moment after its first save; resolves with the states it reported saved. */
function runAndKill(): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      timer ??= setTimeout(() => child.kill('SIGKILL'), Math.random() * MAX_KILL_DELAY_MS);
    });
    child.on('error', reject);
    // 'close': the pipe is drained, so every number the child printed is in `out`.
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`child ended by itself (code ${code}, signal ${signal})`));
      resolve(out.split('\n').filter((l) => /^\d+$/.test(l)).map(Number));
    });
  });
}

test(`the store survives ${KILLS} kill -9 at random moments of large writes: always the last saved state or the next, complete`, { timeout: 600_000 }, async () => {
  let previous = 0;
  let caughtMidWrite = 0;
  let newerThanReported = 0;
  let saves = 0;
  for (let i = 0; i < KILLS; i++) {
    const reported = await runAndKill();
    assert.ok(reported.length > 0, 'the child reported no save');
    assert.deepEqual(reported, reported.map((_, k) => previous + 1 + k), 'the child counts on from the state it opened');
    const last = reported.at(-1)!;
    if (existsSync(`${join(dir, 'state.json')}.tmp`)) caughtMidWrite++;
    const store = await StateStore.open(dir);
    const n = store.state.gains.alphaKbps!;
    assert.ok(n === last || n === last + 1, `kill ${i + 1}: opened state ${n}, the child had reported ${last} saved`);
    if (n === last + 1) newerThanReported++;
    assert.deepEqual(store.state, numberedState(n));
    saves += reported.length;
    previous = n;
  }
  const size = statSync(join(dir, 'state.json')).size;
  console.log(
    `${KILLS} kills over ${saves} saves of ${LOOP_STREAMS} streams (${(size / 1e6).toFixed(2)} MB): ` +
      `${caughtMidWrite} left a temporary file (killed mid-write), ${newerThanReported} found the state being written complete (killed after the rename)`,
  );
});
