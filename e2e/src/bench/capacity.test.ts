import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kneeOf, meetsKnee } from './capacity';

test('knee conditions: 99% of the viewers at 99% of green, server under 90% of the machine', () => {
  const r = (viewersWithGreen99: number | null, cpuPercentOfMachine: number | null) =>
    meetsKnee({ delivery: { viewersWithGreen99 } as Parameters<typeof meetsKnee>[0]['delivery'], cpuPercentOfMachine });
  assert.equal(r(1, 50), true);
  assert.equal(r(0.99, 89.9), true);
  assert.equal(r(0.985, 50), false);
  assert.equal(r(1, 90), false);
  assert.equal(r(null, 10), false);
  assert.equal(r(1, null), false);
});

test('knee: the largest N before the first that misses, in N order', () => {
  assert.equal(kneeOf([{ viewers: 100, ok: true }, { viewers: 25, ok: true }, { viewers: 200, ok: false }, { viewers: 300, ok: true }]), 100);
  assert.equal(kneeOf([{ viewers: 25, ok: false }]), null);
  assert.equal(kneeOf([]), null);
});
