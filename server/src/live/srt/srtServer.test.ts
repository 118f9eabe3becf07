import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { FfmpegIngest } from '../../ingest/ffmpegIngest';
import { DEFAULT_ENCODE } from '../../ingest/sourceSpec';
import { PublishRefused } from '../publishGate';
import type { PublishTarget } from '../publisher';
import { SrtServer } from './srtServer';

const log = pino({ level: 'silent' });
const KEY = 's'.repeat(43);
const small = { ...DEFAULT_ENCODE, width: 160, height: 96, bitrateKbps: 200 };
const ingest = new FfmpegIngest({ kind: 'live' }, small, log, { reconnectMs: 500 });
const target: PublishTarget = { id: 'live1', attachPublisher: (p) => ingest.attachPublisher(p) };
let malformed = 0;
const server = await SrtServer.start({
  port: 0,
  host: '127.0.0.1',
  maxConnections: 4,
  publishTimeoutMs: 5000,
  latencyMs: 120,
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

/** FFmpeg publishing H.264 + AAC test signals over SRT, as OBS does, for `seconds`; resolves with its exit code and stderr. */
function publish(streamId: string, seconds: number): Promise<{ code: number | null; stderr: string }> {
  const ff = spawn('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-re',
    '-f', 'lavfi', '-i', `testsrc2=size=320x180:rate=30:duration=${seconds}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '30', '-c:a', 'aac',
    '-f', 'mpegts', `srt://127.0.0.1:${server.port}?streamid=${streamId}&connect_timeout=3000`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) => ff.on('close', (code) => resolve({ code, stderr })));
}

test('an SRT publisher with the key in its streamid goes through the live ingest: VP8 frames and its AAC as Opus, then reconnecting and waiting when it leaves', async () => {
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
  await new Promise((r) => setTimeout(r, 3000));
  assert.ok(frames >= 30, `${frames} frames encoded`);
  assert.deepEqual(plans, ['encode']);
  assert.ok(opusSamples >= 48_000, `${opusSamples} Opus samples`);
  assert.deepEqual(states.filter((s, i) => s !== states[i - 1]), ['running', 'reconnecting', 'waiting']);
});

test('a wrong key, or a caller that asks to play, is refused in the handshake: FFmpeg fails and the ingest never starts', async () => {
  let frames = 0;
  ingest.on('frame', () => frames++);
  const wrong = await publish('wrong-key', 2);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /reject|connection|error/i);
  const player = await publish(`#!::r=live/${KEY},m=request`, 2);
  assert.notEqual(player.code, 0);
  assert.equal(malformed, 1);
  assert.equal(frames, 0);
  assert.equal(ingest.currentStatus.state, 'waiting');
});
