import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32, syntheticFrames } from './syntheticStream';
import { TEMPORAL_PATTERN } from './frame';

test('mulberry32 is reproducible per seed and uniform on [0, 1)', () => {
  const a = mulberry32(99);
  const b = mulberry32(99);
  const xs = Array.from({ length: 10_000 }, () => a());
  assert.deepEqual(Array.from({ length: 10 }, () => b()), xs.slice(0, 10));
  assert.notDeepEqual(Array.from({ length: 10 }, mulberry32(100)), xs.slice(0, 10));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5) < 0.01);
});

test('synthetic frames follow the 0,2,1,2 pattern with keyframes as base frames', () => {
  const frames = syntheticFrames({ seed: 1, keyframeInterval: 8 }, 24);
  frames.forEach((f, i) => {
    assert.equal(f.temporalId, TEMPORAL_PATTERN[i % 4]);
    assert.equal(f.keyframe, i % 8 === 0);
    assert.equal(f.atMs, (i * 1000) / 30);
  });
});

test('synthetic frame sizes average the configured means within the noise bounds', () => {
  const means = [6000, 3500, 2500] as const;
  const frames = syntheticFrames({ seed: 2, noise: 0.3 }, 40_000).slice(1);
  for (const tid of [0, 1, 2] as const) {
    const sizes = frames.filter((f) => f.temporalId === tid).map((f) => f.bytes);
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    assert.ok(Math.abs(mean / means[tid] - 1) < 0.01, `TID ${tid}: mean ${mean}`);
    assert.ok(sizes.every((b) => b >= means[tid] * 0.7 - 1 && b <= means[tid] * 1.3 + 1));
  }
  assert.deepEqual(syntheticFrames({ seed: 2 }, 50), syntheticFrames({ seed: 2 }, 50));
});
