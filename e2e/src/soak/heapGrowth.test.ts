import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstToLastPct, fittedGrowthPct } from './heapGrowth';

test('first minute to last, and the fitted line over the run', () => {
  assert.equal(firstToLastPct([100, 130, 90, 110]), 10);
  assert.equal(firstToLastPct([100]), null);
  // A steady rise of 1 a minute from 100 over 11 minutes: +10% either way.
  const rising = Array.from({ length: 11 }, (_, i) => 100 + i);
  assert.equal(fittedGrowthPct(rising), 10);
  // 30 minutes around a flat level, the first reading low and the last high: +20% first to last, the line about flat.
  const flat = [90, ...Array.from({ length: 28 }, (_, i) => (i % 2 ? 102 : 98)), 108];
  assert.equal(firstToLastPct(flat), 20);
  assert.ok(Math.abs(fittedGrowthPct(flat)!) < 5, `fitted ${fittedGrowthPct(flat)}%`);
  assert.equal(fittedGrowthPct([100]), null);
});
