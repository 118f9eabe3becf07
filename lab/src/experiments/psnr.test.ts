import { test } from 'node:test';
import assert from 'node:assert/strict';
import { psnrExperiment, decodable, viewClip } from './psnr';
import { missingPrerequisite, type ClipFrame } from './psnrClip';

const missing = missingPrerequisite();
const skip = missing ? `psnr needs FFmpeg with libvpx, the VP8 encoder and the CC0 clip: ${missing}` : false;

test('player model: a lost base frame breaks its period and the next ones until a keyframe; a lost second TID 2 breaks only itself', () => {
  const clip: ClipFrame[] = Array.from({ length: 12 }, (_, i) => ({ index: i, tid: ([0, 2, 1, 2] as const)[i % 4]!, keyframe: i === 0 || i === 8, bytes: 100, psnr: Array.from({ length: i + 1 }, (_, k) => [i - k, 40 - 2 * k] as [number, number]) }));
  const received = clip.map((_, i) => i !== 3 && i !== 4);
  const ok = decodable(received, clip);
  assert.deepEqual(ok, [true, true, true, false, false, false, false, false, true, true, true, true]);
  const v = viewClip(ok, 0, clip);
  assert.deepEqual(v.psnr.slice(0, 9), [40, 40, 40, 38, 36, 34, 32, 30, 40]);
  assert.equal(v.repeats, 5);
});

test('psnr (short): PELS beats best effort at both loss levels, stays near the no-loss PSNR at 10%, and is deterministic', { skip, timeout: 120_000 }, () => {
  const a = psnrExperiment.run({ seed: 1, short: true });
  const b = psnrExperiment.run({ seed: 1, short: true });
  assert.deepEqual(a.summary, b.summary);
  assert.deepEqual(a.rows, b.rows);
  const row = (loss: number, mode: string) => a.summary.find((r) => r.loss === loss && r.mode === mode)!;
  for (const loss of [0.1, 0.19]) {
    const pels = row(loss, 'pels');
    const be = row(loss, 'best-effort');
    assert.ok(Number(pels.meanPsnr) > Number(be.meanPsnr), `loss ${loss}: PELS ${pels.meanPsnr} dB vs best effort ${be.meanPsnr} dB`);
    assert.ok(Math.abs(Number(pels.packetLoss) - loss) < 0.05, `loss ${loss}: PELS measured ${pels.packetLoss}`);
  }
  const p10 = row(0.1, 'pels');
  assert.ok(Number(p10.noLossPsnr) - Number(p10.meanPsnr) < 3, `PELS at 10%: ${p10.meanPsnr} dB vs ${p10.noLossPsnr} dB without loss`);
  assert.ok(a.rows.length > 0 && a.rows.every((r) => typeof r.psnr === 'number' && r.psnr > 0));
  assert.match(a.figure, /^<svg/);
});
