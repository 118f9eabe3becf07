import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { pino } from 'pino';
import { crc32 } from '@pels/shared/crc32';
import { ControlCore } from '@pels/shared/control/controlCore';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import { RENDITION_POLICY_DEFAULTS } from '@pels/shared/pels/renditionPolicy';
import { FfmpegIngest } from '../ingest/ffmpegIngest';
import { resolveSource } from '../ingest/mediaFiles';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import type { LayeredFrame } from '../layering/layeredFrame';
import { ivfFileHeader, ivfFrame } from '../quality/ivfWriter';
import { RenditionFrames, type FrameSet } from './renditionFrames';

const TOP = { ...DEFAULT_ENCODE, width: 160, height: 96, bitrateKbps: 400 };
const LOW = { width: 80, height: 48, bitrateKbps: 100 };

/** libvpx's decode of a VP8 stream (sizes may change at keyframes): each frame's Y plane, sizes given in order. */
function decodeY(frames: readonly Uint8Array[], sizes: readonly { width: number; height: number }[]): Uint8Array[] {
  const ivf = Buffer.concat([ivfFileHeader(TOP.width, TOP.height, 30), ...frames.map((f, i) => ivfFrame(i, f))]);
  const out = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'ivf', '-c:v', 'libvpx', '-i', 'pipe:0', '-autoscale', '0', '-vf', 'extractplanes=y', '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:1'], { input: ivf, maxBuffer: 1 << 28 });
  const planes: Uint8Array[] = [];
  let off = 0;
  for (const { width, height } of sizes) {
    planes.push(out.subarray(off, off + width * height));
    off += width * height;
  }
  assert.equal(off, out.length, 'one plane per frame');
  return planes;
}

test('a viewer switching renditions at their keyframes decodes exactly the frames each rendition decodes on its own', async () => {
  const ingest = new FfmpegIngest(await resolveSource('lavfi:testsrc2=size=160x96:rate=30', []), TOP, pino({ level: 'silent' }), { renditions: [LOW] });
  const sets: FrameSet[] = [];
  const renditionFrames = new RenditionFrames(2, 3000);
  // The rate is set through the bounds: high, low from frame 20 (down), high again from frame 70 (up).
  const core = new ControlCore({
    origin: 'v1',
    control: { mkc: { ...MKC_PAPER_GAINS, initialKbps: 1000, minKbps: 50, maxKbps: 1000 } },
    feedback: 'rtcp',
    mode: 'best-effort',
    startMs: 0,
    seed: 1,
    renditions: { count: 2, policy: { ...RENDITION_POLICY_DEFAULTS, minDwellMs: 0, upHoldMs: 0 } },
  });
  core.step({ kind: 'rendition-rates', atMs: 0, baseKbps: [100, 25], fullKbps: [400, 100] });
  const sent: { frame: LayeredFrame; rendition: number }[] = [];
  ingest.on('run', () => renditionFrames.newRun());
  ingest.on('frame', (f, r) => {
    for (const set of renditionFrames.push(r, f.data, Number(f.pts))) {
      const i = sets.push(set) - 1;
      if (i === 20) core.step({ kind: 'rate-bounds', atMs: i * 33, minKbps: 50, maxKbps: 50 });
      if (i === 70) core.step({ kind: 'rate-bounds', atMs: i * 33, minKbps: 1000, maxKbps: 1000 });
      const { decision, keyframeRequest } = core.step({ kind: 'frames', atMs: i * 33, frames: set.frames });
      if (keyframeRequest !== null) ingest.requestKeyframe(keyframeRequest);
      sent.push({ frame: set.frames[decision!.rendition]!, rendition: decision!.rendition });
    }
  });
  ingest.start();
  while (sets.length < 120) await new Promise((r) => setTimeout(r, 50));
  ingest.close();
  const path = sent.map((s) => s.rendition);
  const down = path.indexOf(1);
  const up = path.indexOf(0, down);
  assert.ok(down >= 20 && down < 30 && up >= 70 && up < 80, `renditions sent: ${path.join('')}`);
  assert.equal(core.renditionState(120 * 33).switches, 2);
  // Each rendition's own full decode, and the viewer's mixed one: the same picture for every frame sent.
  const own = [0, 1].map((r) => decodeY(sets.map((s) => s.frames[r]!.data), sets.map(() => (r === 0 ? TOP : LOW))));
  const mixed = decodeY(sent.map((s) => s.frame.data), sent.map((s) => (s.rendition === 0 ? TOP : LOW)));
  sent.forEach((s, i) => assert.equal(crc32(mixed[i]!), crc32(own[s.rendition]![i]!), `frame ${i} of rendition ${s.rendition}`));
});
