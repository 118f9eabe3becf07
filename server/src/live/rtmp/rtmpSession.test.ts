import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { FfmpegIngest } from '../../ingest/ffmpegIngest';
import { DEFAULT_ENCODE } from '../../ingest/sourceSpec';
import { PublishRefused } from '../publishGate';
import type { PublishTarget } from '../publisher';
import { RtmpServer } from './rtmpServer';

const log = pino({ level: 'silent' });
const KEY = 'k'.repeat(43);
const small = { ...DEFAULT_ENCODE, width: 160, height: 96, bitrateKbps: 200 };
const ingest = new FfmpegIngest({ kind: 'live' }, small, log, { reconnectMs: 500 });
const target: PublishTarget = { id: 'live1', attachPublisher: (p) => ingest.attachPublisher(p) };
let malformed = 0;
const server = await RtmpServer.start({
  port: 0,
  host: '127.0.0.1',
  maxConnections: 4,
  publishTimeoutMs: 3000,
  onMalformed: () => malformed++,
  admit: (_address, key) => {
    if (key !== KEY) throw new PublishRefused('bad_key', 'unknown stream key');
    return target;
  },
  log,
});
ingest.start();
after(() => {
  server.close();
  ingest.close();
});

/** FFmpeg publishing H.264 + AAC test signals, as OBS does, for `seconds`; resolves with its exit code and stderr. */
function publish(key: string, seconds: number): Promise<{ code: number | null; stderr: string }> {
  const ff = spawn('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-re',
    '-f', 'lavfi', '-i', `testsrc2=size=320x180:rate=30:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '30', '-c:a', 'aac',
    '-f', 'flv', `rtmp://127.0.0.1:${server.port}/live/${key}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) => ff.on('close', (code) => resolve({ code, stderr })));
}

test("an FFmpeg publisher with the key goes through the live ingest: encoded VP8 frames and its AAC as Opus come out, and the stream reconnects then waits when it leaves", async () => {
  const states: string[] = [];
  ingest.on('status', (s) => states.push(s.state));
  let frames = 0;
  ingest.on('frame', () => frames++);
  const plans: string[] = [];
  ingest.on('run', (audio) => plans.push(audio));
  let opusSamples = 0;
  ingest.on('audio', (p) => (opusSamples += p.samples));
  const { code, stderr } = await publish(KEY, 3);
  assert.equal(code, 0, stderr);
  assert.ok(frames >= 30, `${frames} frames encoded`);
  assert.deepEqual(plans, ['encode']);
  // At least a second of sound, at 48 kHz.
  assert.ok(opusSamples >= 48_000, `${opusSamples} Opus samples`);
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual(states.filter((s, i) => s !== states[i - 1]), ['running', 'reconnecting', 'waiting']);
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
  const before = malformed;
  await closedAfter(Buffer.concat([Buffer.from([6]), Buffer.alloc(1536)]));
  // A valid handshake, then a chunk stream that starts without a full header.
  await closedAfter(Buffer.concat([Buffer.from([3]), Buffer.alloc(1536), Buffer.alloc(1536), Buffer.from([0x43, 0, 0, 0, 0, 0, 4, 20])]));
  // A message length over the limit.
  await closedAfter(Buffer.concat([Buffer.from([3]), Buffer.alloc(3072), Buffer.from([0x03, 0, 0, 0, 0xff, 0xff, 0xff, 20, 0, 0, 0, 0])]));
  assert.equal(malformed - before, 3);
  assert.equal(server.connections, 0);
});
