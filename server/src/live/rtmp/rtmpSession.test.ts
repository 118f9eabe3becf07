import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { assertIngestRestartKeepsPublisher, assertPublishedThrough, liveTestRig, publishTestSignal } from '../liveTestRig';
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

const publish = (key: string, seconds: number) => publishTestSignal(`rtmp://127.0.0.1:${server.port}/live/${key}`, 'flv', seconds);

test("an FFmpeg publisher with the key goes through the live ingest: encoded VP8 frames and its AAC as Opus come out, and the stream reconnects then waits when it leaves", async () => {
  await assertPublishedThrough(ingest, () => publish(KEY, 3));
});

test("the ingest's FFmpeg killed mid-stream: a new run reads the same connection from the publisher's next keyframe, and the publisher stays connected to the end", async () => {
  await assertIngestRestartKeepsPublisher(ingest, 'flv -i pipe:0', () => publish(KEY, 8));
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
