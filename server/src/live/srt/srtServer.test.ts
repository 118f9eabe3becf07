import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { assertBehindIngestCatchesUp, assertIngestRestartKeepsPublisher, assertPublishedThrough, liveTestRig, publishTestSignal } from '../liveTestRig';
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

const publish = (streamId: string, seconds: number) => publishTestSignal(`srt://127.0.0.1:${server.port}?streamid=${streamId}&connect_timeout=3000`, 'mpegts', seconds);

test('an SRT publisher with the key in its streamid goes through the live ingest: VP8 frames and its AAC as Opus, then reconnecting and waiting when it leaves', async () => {
  await assertPublishedThrough(ingest, () => publish(KEY, 3));
});

test("the ingest's FFmpeg killed mid-stream: a new run reads the same caller from its next keyframe, and the caller stays connected to the end", async () => {
  await assertIngestRestartKeepsPublisher(ingest, 'mpegts -i pipe:0', () => publish(KEY, 8));
});

test('the ingest behind its caller past the bound (its FFmpeg stopped 2.5 s): the media is dropped up to a keyframe, the gap closed in the PTS, and the stream goes on near live', async () => {
  await assertBehindIngestCatchesUp(ingest, 'mpegts -i pipe:0', () => publish(KEY, 8), 8);
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
