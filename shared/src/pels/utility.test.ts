import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestEffortUtility, expectedUsefulPackets, pelsUtilityBound } from './utility';
import { mulberry32 } from './syntheticStream';

/** (1-p)^H by repeated multiplication: independent of the module's expm1/log1p form. */
function power(base: number, n: number): number {
  let r = 1;
  for (let i = 0; i < n; i++) r *= base;
  return r;
}

test('best-effort utility matches the closed form (eq. 3)', () => {
  const cases = [
    { p: 0.1, h: 10, expected: (1 - power(0.9, 10)) / 1 }, // 0.6513215599
    { p: 0.1, h: 100, expected: (1 - power(0.9, 100)) / 10 }, // paper: U = 0.1
    { p: 0.01, h: 100, expected: (1 - power(0.99, 100)) / 1 },
    { p: 0.5, h: 1, expected: 1 },
    { p: 1, h: 4, expected: 0.25 },
  ];
  for (const { p, h, expected } of cases) assert.ok(Math.abs(bestEffortUtility(p, h) - expected) < 1e-12, `p=${p} H=${h}`);
  assert.ok(Math.abs(bestEffortUtility(0.1, 10) - 0.6513215599) < 1e-9);
});

test('utility at p = 0 is the limit 1, and tiny p stays continuous', () => {
  assert.equal(bestEffortUtility(0, 100), 1);
  assert.ok(Math.abs(bestEffortUtility(1e-12, 100) - 1) < 1e-9);
  assert.equal(expectedUsefulPackets(0, 100), 100);
});

test('expected useful packets reproduce the paper Table 1 (H = 100)', () => {
  const table = [
    { p: 0.0001, model: 99.49 },
    { p: 0.01, model: 62.76 },
    { p: 0.1, model: 8.99 },
  ];
  for (const { p, model } of table) assert.ok(Math.abs(expectedUsefulPackets(p, 100) - model) < 0.01, `p=${p}`);
});

test('expected useful packets agree with a Bernoulli-loss simulation (Lemma 1)', () => {
  const random = mulberry32(7);
  const p = 0.1;
  const h = 10;
  const frames = 200_000;
  let useful = 0;
  for (let f = 0; f < frames; f++) {
    let k = 0;
    while (k < h && random() >= p) k++;
    useful += k;
  }
  assert.ok(Math.abs(useful / frames - expectedUsefulPackets(p, h)) < 0.02);
});

test('PELS utility bound (eq. 6): 0.96 at p = 0.1 and 0.996 at p = 0.01 with p_thr = 0.75', () => {
  assert.ok(Math.abs(pelsUtilityBound(0.1, 0.75) - (1 - 0.1 / 0.75) / 0.9) < 1e-12);
  assert.ok(Math.abs(pelsUtilityBound(0.1, 0.75) - 0.963) < 0.001);
  assert.ok(Math.abs(pelsUtilityBound(0.01, 0.75) - 0.9966) < 0.0001);
  assert.equal(pelsUtilityBound(0, 0.75), 1);
  assert.equal(pelsUtilityBound(0.8, 0.75), 0);
  assert.ok(pelsUtilityBound(0.1, 0.75) > bestEffortUtility(0.1, 10));
});

test('utility rejects inputs outside its domain', () => {
  const bad: Array<() => number> = [
    () => bestEffortUtility(-0.1, 10),
    () => bestEffortUtility(0.1, 0),
    () => bestEffortUtility(0.1, 2.5),
    () => expectedUsefulPackets(1.5, 10),
    () => pelsUtilityBound(1, 0.75),
    () => pelsUtilityBound(0.1, 0),
    () => pelsUtilityBound(Number.NaN, 0.75),
  ];
  for (const f of bad) assert.throws(f, RangeError);
});
