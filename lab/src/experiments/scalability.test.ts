import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scalabilityExperiment } from './scalability';

const result = scalabilityExperiment.run({ seed: 1, short: true });
const loss = (controller: string, n: number): number => result.rows.find((r) => r.controller === controller && r.n === n)!.loss as number;

test('every controller runs at every n, each row naming its controller, n and loss', () => {
  for (const c of ['iiad', 'sqrt', 'tfrc', 'aimd', 'iscc', 'mkc']) {
    for (const n of [2, 10, 50]) assert.equal(typeof loss(c, n), 'number', `${c} n=${n}`);
  }
});

test('MKC with router feedback loses n alpha / (beta C + n alpha), within 1.5 points', () => {
  for (const n of [2, 10, 50]) {
    const row = result.rows.find((r) => r.controller === 'mkc' && r.n === n)!;
    assert.ok(Math.abs((row.lossPct as number) - (row.modelLossPct as number)) < 1.5, `n=${n}: ${row.lossPct}% vs ${row.modelLossPct}%`);
  }
});

test('loss grows with n for the binomial schemes and TFRC, and stays low and flat for ISCC', () => {
  for (const c of ['iiad', 'sqrt', 'aimd']) assert.ok(loss(c, 50) >= 0.2, `${c}: p_50 ${loss(c, 50)}`);
  for (const c of ['iiad', 'sqrt', 'aimd', 'tfrc']) assert.ok(loss(c, 50) > 2 * loss('iscc', 50), `${c} vs iscc at n = 50`);
  assert.ok(loss('iiad', 50) / loss('iiad', 2) >= 20, 'IIAD s_50');
  assert.ok(loss('iscc', 50) <= 0.1, `ISCC p_50 ${loss('iscc', 50)}`);
  assert.ok(loss('iscc', 50) / loss('iscc', 2) <= 5, 'ISCC s_50');
});

test('the same seed gives the same run', () => {
  assert.deepEqual(scalabilityExperiment.run({ seed: 1, short: true }).rows, result.rows);
});
