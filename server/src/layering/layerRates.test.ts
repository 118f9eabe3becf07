import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LayerRateMeter } from './layerRates';

test('per-layer rates over the window', () => {
  const m = new LayerRateMeter(4000);
  // 30 fps for 6 s, pattern 0,2,1,2: base 4000 B, TID 1 3000 B, TID 2 2000 B.
  const size = [4000, 3000, 2000];
  for (let i = 0; i < 180; i++) {
    const tid = ([0, 2, 1, 2] as const)[i % 4]!;
    m.add(tid, size[tid]!, (i * 1000) / 30);
  }
  const r = m.rates((179 * 1000) / 30)!;
  // base: 7.5 frames/s * 4000 B * 8 = 240 kb/s
  assert.ok(Math.abs(r.tid0 - 240) / 240 < 0.05, `${r.tid0}`);
  assert.ok(Math.abs(r.tid1 - 180) / 180 < 0.05, `${r.tid1}`);
  assert.ok(Math.abs(r.tid2 - 240) / 240 < 0.05, `${r.tid2}`);
  assert.ok(Math.abs(r.total - (r.tid0 + r.tid1 + r.tid2)) < 1e-9);
});

test('no rate before a second of frames', () => {
  const m = new LayerRateMeter();
  m.add(0, 1000, 0);
  assert.equal(m.rates(500), null);
  m.add(0, 1000, 1200);
  assert.notEqual(m.rates(1200), null);
});

test('no rate while the window holds no base frame: a source that stalled after enhancement frames gives no floor of 0', () => {
  const m = new LayerRateMeter(4000);
  for (let i = 0; i < 60; i++) m.add(([0, 2, 1, 2] as const)[i % 4]!, 1000, (i * 1000) / 30);
  // The source stops after a TID 2 frame at 2.1 s; nearly 4 s later it alone is inside the window.
  m.add(2, 1000, 2100);
  assert.notEqual(m.rates(2100), null);
  assert.equal(m.rates(2100 + 3990), null);
});
