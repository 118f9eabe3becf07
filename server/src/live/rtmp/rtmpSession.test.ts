import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { assertPublishedThrough, liveTestRig, publishTestSignal } from '../liveTestRig';
import { RtmpServer } from './rtmpServer';

const KEY = 'k'.repeat(43);
const rig = liveTestRig(KEY);
const { ingest } = rig;
const server = await RtmpServer.start({
  port: 0,
  host: '127.0.0.1',
  maxConnections: 4,
  publishTimeoutMs: 3000,
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
const publish = (key: string, seconds: number) => publishTestSignal(`rtmp://127.0.0.1:${server.port}/live/${key}`, 'flv', seconds);

test("an FFmpeg publisher with the key goes through the live ingest: encoded VP8 frames and its AAC as Opus come out, and the stream reconnects then waits when it leaves", async () => {
  await assertPublishedThrough(ingest, () => publish(KEY, 3));
});

test("the ingest's FFmpeg killed mid-stream: a new run reads the same connection from the publisher's next keyframe, and the publisher stays connected to the end", async () => {
  const states: string[] = [];
  const onStatus = (st: { state: string }) => states.push(st.state);
  ingest.on('status', onStatus);
  let frames = 0;
  const onFrame = (_f: unknown, rendition: number) => rendition === 0 && frames++;
  ingest.on('frame', onFrame);
  const publishing = publish(KEY, 8);
  await until(() => ingest.currentStatus.state === 'running', 'running');
  await sleep(1000);
  // This process's ingest FFmpeg (the publisher's FFmpeg writes to an rtmp:// URL).
  const pid = Number(execFileSync('pgrep', ['-P', String(process.pid), '-f', 'flv -i pipe:0'], { encoding: 'utf8' }).trim());
  process.kill(pid, 'SIGKILL');
  await until(() => states.at(-1) !== 'running', 'the run ended');
  assert.equal(states.at(-1), 'restarting');
  const atKill = frames;
  const { code, stderr } = await publishing;
  assert.equal(code, 0, `the publisher was cut off: ${stderr}`);
  assert.ok(frames - atKill >= 60, `${frames - atKill} frames after the restart`);
  await sleep(1500);
  ingest.off('status', onStatus);
  ingest.off('frame', onFrame);
  assert.deepEqual(states.filter((st, i) => st !== states[i - 1]), ['running', 'restarting', 'running', 'reconnecting', 'waiting']);
});

test('a wrong key is refused before any media: FFmpeg fails and the ingest never starts', async () => {
  let frames = 0;
  ingest.on('frame', () => frames++);
  const { code, stderr } = await publish('wrong-key', 2);
  assert.notEqual(code, 0);
  assert.match(stderr, /Denied|unknown stream key|error/i);
  assert.equal(frames, 0);
  assert.equal(ingest.currentStatus.state, 'waiting');
});

test('a bad handshake or garbage chunks close the connection and are counted, no crash', async () => {
  const closedAfter = (bytes: Buffer) =>
    new Promise<void>((resolve) => {
      const s = connect(server.port, '127.0.0.1', () => s.write(bytes));
      s.on('error', () => undefined);
      s.on('close', () => resolve());
      s.resume();
    });
  const before = rig.malformed;
  await closedAfter(Buffer.concat([Buffer.from([6]), Buffer.alloc(1536)]));
  // A valid handshake, then a chunk stream that starts without a full header.
  await closedAfter(Buffer.concat([Buffer.from([3]), Buffer.alloc(1536), Buffer.alloc(1536), Buffer.from([0x43, 0, 0, 0, 0, 0, 4, 20])]));
  // A message length over the limit.
  await closedAfter(Buffer.concat([Buffer.from([3]), Buffer.alloc(3072), Buffer.from([0x03, 0, 0, 0, 0xff, 0xff, 0xff, 20, 0, 0, 0, 0])]));
  assert.equal(rig.malformed - before, 3);
  assert.equal(server.connections, 0);
});
