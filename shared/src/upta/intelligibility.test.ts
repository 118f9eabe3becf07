import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMPORAL_PATTERN } from '../pels/frame';
import { IntelligibilityModel } from './intelligibility';

/** A table from frame 100 in the 0,2,1,2 pattern: each frame 40 dB as itself, 3 dB less per frame it is repeated for, 8 back. */
function rows(count: number) {
  return Array.from({ length: count }, (_, n) => {
    const index = 100 + n;
    return {
      index,
      tid: TEMPORAL_PATTERN[index % 4]!,
      psnr: Array.from({ length: Math.min(9, n + 1) }, (_, k) => 40 - 3 * k),
    };
  });
}

const near = (a: number | null, b: number, eps = 1e-9) => assert.ok(a !== null && Math.abs(a - b) < eps, `${a} vs ${b}`);

test('without loss every layer shows each frame itself; the base layer alone repeats its frame for the three after it', () => {
  const m = new IntelligibilityModel(rows(400));
  near(m.expectedPsnr(3, { base: 0, enhancement: 0 }), 40);
  near(m.expectedPsnr(1, { base: 0, enhancement: 0 }), (40 + 37 + 34 + 31) / 4);
  near(m.expectedPsnr(2, { base: 0, enhancement: 0 }), (40 + 37 + 40 + 37) / 4);
});

test('a lost base frame breaks the frames after it: base-only rows by hand', () => {
  // Only rows of base frames: the window (offsets 0..8) holds base frames at 0, 4 and 8, chained.
  // The table's first two base rows have shorter windows: among 1000 they move the mean by under 0.02 dB.
  const m = new IntelligibilityModel(rows(4000).filter((r) => r.tid === 0));
  const p = 0.1;
  const expected = (1 - p) ** 3 * 40 + (1 - p) ** 2 * p * 28 + (1 - p) * p * 16 + p * 16; // none decodes: the oldest entry
  near(m.expectedPsnr(1, { base: p, enhancement: 0 }), expected, 0.02);
  near(m.expectedPsnr(3, { base: p, enhancement: 1 }), expected, 0.02);
});

test('expected PSNR falls with loss, base loss costs more than the same enhancement loss, and the threshold meets the floor', () => {
  const m = new IntelligibilityModel(rows(200));
  let last = Infinity;
  for (let p = 0; p <= 1; p += 0.05) {
    const db = m.expectedPsnr(3, { base: p, enhancement: p })!;
    assert.ok(db <= last + 1e-9, `not falling at ${p}`);
    last = db;
  }
  assert.ok(m.expectedPsnr(3, { base: 0.2, enhancement: 0 })! < m.expectedPsnr(3, { base: 0, enhancement: 0.2 })!);
  const q = m.lossThreshold(3, 30)!;
  assert.ok(q > 0 && q < 1);
  near(m.expectedPsnr(3, { base: q, enhancement: q }), 30, 0.05);
  assert.ok(m.lossThreshold(1, 30)! < q, 'the base layer alone reaches the floor sooner');
  assert.equal(m.lossThreshold(3, 45), 0);
  assert.equal(m.lossThreshold(3, 10), 1);
});

test('no rows: no estimate; a loss outside [0, 1] is an error', () => {
  const empty = new IntelligibilityModel([]);
  assert.equal(empty.expectedPsnr(3, { base: 0, enhancement: 0 }), null);
  assert.equal(empty.lossThreshold(1, 20), null);
  assert.throws(() => new IntelligibilityModel(rows(20)).expectedPsnr(3, { base: 1.5, enhancement: 0 }), RangeError);
});
