import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, test } from 'node:test';
import { assertPublishedThrough, liveTestRig, publishTestSignal } from '../liveTestRig';
import { SrtServer } from './srtServer';

const KEY = 's'.repeat(43);
const rig = liveTestRig(KEY);
const { ingest } = rig;
const server = await SrtServer.start({
  port: 0,
  host: '127.0.0.1',
  maxConnections: 4,
  publishTimeoutMs: 5000,
  latencyMs: 120,
  onMalformed: rig.onMalformed,
  admit: rig.admit,
  log: rig.log,
});
ingest.start();
after(() => {
  server.close();
  ingest.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(done: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 10_000; !done(); await sleep(50)) if (Date.now() > end) throw new Error(`not ${what} within 10 s`);
}
const publish = (streamId: string, seconds: number) => publishTestSignal(`srt://127.0.0.1:${server.port}?streamid=${streamId}&connect_timeout=3000`, 'mpegts', seconds);

test('an SRT publisher with the key in its streamid goes through the live ingest: VP8 frames and its AAC as Opus, then reconnecting and waiting when it leaves', async () => {
  await assertPublishedThrough(ingest, () => publish(KEY, 3));
});

test("the ingest's FFmpeg killed mid-stream: a new run reads the same caller from its next keyframe, and the caller stays connected to the end", async () => {
  const states: string[] = [];
  const onStatus = (st: { state: string }) => states.push(st.state);
  ingest.on('status', onStatus);
  let frames = 0;
  const onFrame = (_f: unknown, rendition: number) => rendition === 0 && frames++;
  ingest.on('frame', onFrame);
  const publishing = publish(KEY, 8);
  await until(() => ingest.currentStatus.state === 'running', 'running');
  await sleep(1000);
  // This process's ingest FFmpeg (the publisher's FFmpeg writes to an srt:// URL).
  process.kill(Number(execFileSync('pgrep', ['-P', String(process.pid), '-f', 'mpegts -i pipe:0'], { encoding: 'utf8' }).trim()), 'SIGKILL');
  await until(() => states.at(-1) !== 'running', 'the run ended');
  assert.equal(states.at(-1), 'restarting');
  const atKill = frames;
  const { code, stderr } = await publishing;
  assert.equal(code, 0, `the caller was cut off: ${stderr}`);
  assert.ok(frames - atKill >= 60, `${frames - atKill} frames after the restart`);
  await sleep(1500);
  ingest.off('status', onStatus);
  ingest.off('frame', onFrame);
  assert.deepEqual(states.filter((st, i) => st !== states[i - 1]), ['running', 'restarting', 'running', 'reconnecting', 'waiting']);
});

test('a wrong key, or a caller that asks to play, is refused in the handshake: FFmpeg fails and the ingest never starts', async () => {
  let frames = 0;
  ingest.on('frame', () => frames++);
  const wrong = await publish('wrong-key', 2);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /reject|connection|error/i);
  const player = await publish(`#!::r=live/${KEY},m=request`, 2);
  assert.notEqual(player.code, 0);
  assert.equal(rig.malformed, 1);
  assert.equal(frames, 0);
  assert.equal(ingest.currentStatus.state, 'waiting');
});
