import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs } from './backoff';

test('the ceiling doubles from the first delay up to the cap; the delay lies between half the ceiling and the ceiling', () => {
  const cases: Array<[failures: number, firstMs: number, maxMs: number, random: number, expected: number]> = [
    [1, 500, 10_000, 0, 250],
    [1, 500, 10_000, 0.5, 375],
    [1, 500, 10_000, 0.999, 499.75],
    [0, 500, 10_000, 0, 250],
    [2, 500, 10_000, 0, 500],
    [3, 500, 10_000, 1, 2000],
    [5, 500, 10_000, 0.5, 6000],
    [6, 500, 10_000, 0, 5000],
    [7, 500, 10_000, 0.999, 9995],
    [40, 500, 10_000, 0.5, 7500],
    [4, 500, 5000, 0.25, 2500],
    [9, 500, 5000, 0, 2500],
  ];
  for (const [failures, firstMs, maxMs, random, expected] of cases) {
    assert.equal(backoffMs(failures, firstMs, maxMs, random), expected, `failures ${failures}, random ${random}`);
  }
});

test('by default the delay is random: clients that failed together spread out', () => {
  const delays = Array.from({ length: 200 }, () => backoffMs(3));
  for (const d of delays) assert.ok(d >= 1000 && d <= 2000, `${d}`);
  assert.ok(new Set(delays).size > 100, `${new Set(delays).size} distinct delays of 200`);
});
