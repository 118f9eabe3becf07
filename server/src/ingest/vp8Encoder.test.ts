import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { test } from 'node:test';
import { parseVp8FrameHeader } from '@pels/shared/vp8/frameHeader';
import type { IvfFrame } from './ivfReader';
import { DEFAULT_ENCODE, type EncodeSettings } from './sourceSpec';
import { ENCODER_PATH, encoderArgs, Vp8Encoder } from './vp8Encoder';

const settings: EncodeSettings = { ...DEFAULT_ENCODE, width: 320, height: 180, bitrateKbps: 600, keyframeInterval: 60 };
const FRAME_BYTES = (settings.width * settings.height * 3) / 2;

/** Raw I420 frames of a moving test picture, from FFmpeg. */
function rawFrames(count: number): Buffer[] {
  const raw = execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${settings.width}x${settings.height}:rate=30`,
    '-frames:v', String(count), '-pix_fmt', 'yuv420p', '-f', 'rawvideo', 'pipe:1',
  ], { maxBuffer: count * FRAME_BYTES + 1 });
  return Array.from({ length: count }, (_, i) => raw.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES));
}

/** Drives a real encoder frame by frame: each frame is written once the previous one came out, so a request lands on a known frame. */
class Driver {
  readonly encoder = new Vp8Encoder(settings);
  readonly out: IvfFrame[] = [];
  private waiting: (() => void) | null = null;

  constructor() {
    this.encoder.on('frame', (f) => {
      this.out.push(f);
      this.waiting?.();
    });
  }

  async encode(frame: Buffer): Promise<void> {
    const before = this.out.length;
    const came = new Promise<void>((resolve) => (this.waiting = () => this.out.length > before && resolve()));
    this.encoder.input.write(frame);
    await came;
  }

  async end(): Promise<number | null> {
    const closed = once(this.encoder, 'close');
    this.encoder.input.end();
    const [exit] = (await closed) as [{ code: number | null }];
    return exit.code;
  }
}

const tids = (frames: IvfFrame[]) => frames.map((f) => parseVp8FrameHeader(f.data).temporalId);
const keyframes = (frames: IvfFrame[]) => frames.flatMap((f, i) => (parseVp8FrameHeader(f.data).keyframe ? [i] : []));

test('a keyframe requested mid-pattern comes at the next frame, as TID 0, and the 0,2,1,2 pattern starts again from it', async () => {
  const frames = rawFrames(16);
  const d = new Driver();
  for (const f of frames.slice(0, 6)) await d.encode(f);
  d.encoder.requestKeyframe();
  for (const f of frames.slice(6)) await d.encode(f);
  assert.equal(await d.end(), 0);
  assert.deepEqual(keyframes(d.out), [0, 6]);
  assert.deepEqual(tids(d.out), [0, 2, 1, 2, 0, 2, /* requested */ 0, 2, 1, 2, 0, 2, 1, 2, 0, 2]);
  // pts counts input frames: the server pairs them with the reference planes.
  assert.deepEqual(d.out.map((f) => Number(f.pts)), [...Array(16).keys()]);
});

test('the periodic keyframe interval counts from the last keyframe, requested or not, and stays on the pattern start', async () => {
  const frames = rawFrames(140);
  const d = new Driver();
  for (const [i, f] of frames.entries()) {
    if (i === 30) d.encoder.requestKeyframe();
    await d.encode(f);
  }
  assert.equal(await d.end(), 0);
  assert.deepEqual(keyframes(d.out), [0, 30, 90]);
  const expected = Array.from({ length: 140 }, (_, i) => [0, 2, 1, 2][(i < 30 ? i : i - 30) % 4]);
  assert.deepEqual(tids(d.out), expected);
});

test('a bitrate request changes the frame sizes from the next frame on, and the layers keep their pattern', async () => {
  const frames = rawFrames(180);
  const d = new Driver();
  for (const [i, f] of frames.entries()) {
    if (i === 90) d.encoder.setBitrate(100);
    await d.encode(f);
  }
  assert.equal(await d.end(), 0);
  // Rate over the last 2 s of each part (rate control settles within a few frames), in kb/s at 30 fps.
  const kbps = (from: number, to: number) => (d.out.slice(from, to).reduce((n, f) => n + f.data.length, 0) * 8 * 30) / (to - from) / 1000;
  const before = kbps(30, 90);
  const after = kbps(120, 180);
  assert.ok(before > 400 && before < 800, `${before} kb/s at 600`);
  assert.ok(after > 50 && after < 160, `${after} kb/s at 100`);
  assert.deepEqual(keyframes(d.out), [0, 60, 120]);
  assert.deepEqual(tids(d.out), Array.from({ length: 180 }, (_, i) => [0, 2, 1, 2][i % 4]));
});

test('the end of the input ends the encoder cleanly, every frame written', async () => {
  const frames = rawFrames(9);
  const d = new Driver();
  d.encoder.input.write(Buffer.concat(frames));
  assert.equal(await d.end(), 0);
  assert.equal(d.out.length, 9);
});

test('a request it does not know ends it with a clear error', async () => {
  const proc = spawn(ENCODER_PATH, [...encoderArgs(settings), '--control-fd', '3'], { stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  (proc.stdio[3] as Writable).write('snapshot\n');
  proc.stdin!.write(rawFrames(1)[0]!);
  const [code] = await once(proc, 'close');
  assert.equal(code, 2);
  assert.equal(stderr, 'pels-vp8enc: unknown request on the control channel: "snapshot"\n');
});

test('bad arguments end it at once with the reason and exit status 2', () => {
  const run = (...args: string[]) => spawnSync(ENCODER_PATH, args, { encoding: 'utf8', input: '' });
  const ok = ['--width', '320', '--height', '180', '--fps', '30', '--kbps', '600'];
  const r1 = run(...ok, '--keyframe-interval', '30');
  assert.equal(r1.status, 2);
  assert.equal(r1.stderr, 'pels-vp8enc: --keyframe-interval must be a multiple of 4, got 30\n');
  const r2 = run(...ok.slice(0, -1), '12k', '--keyframe-interval', '60');
  assert.equal(r2.status, 2);
  assert.equal(r2.stderr, 'pels-vp8enc: --kbps must be an integer in [4, 100000], got "12k"\n');
  const r3 = run('--width', '321', ...ok.slice(2), '--keyframe-interval', '60');
  assert.equal(r3.status, 2);
  assert.match(r3.stderr, /--width and --height must be even, got 321x180/);
  const encoder = new Vp8Encoder(settings);
  try {
    assert.throws(() => encoder.setBitrate(0.5), /bitrate must be an integer in \[4, 100000\] kb\/s, got 0.5/);
  } finally {
    encoder.kill();
  }
});
