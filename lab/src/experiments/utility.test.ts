import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utilityExperiment } from './utility';

const result = utilityExperiment.run({ seed: 1, short: true });
const num = (v: unknown): number => v as number;

test('Monte Carlo agrees with eqs. 2 and 3 within 4 standard errors at every (H, p)', () => {
  assert.equal(result.rows.length, 13);
  for (const r of result.rows) {
    assert.ok(Math.abs(num(r.zScore)) < 4, `H=${r.H} p=${r.p}: z = ${r.zScore}`);
    // Utility: useful over received; close to the model at these sample sizes.
    assert.ok(Math.abs(num(r.utilityMonteCarlo) - num(r.utilityBestEffort)) < 0.02, `H=${r.H} p=${r.p}: U ${r.utilityMonteCarlo} vs ${r.utilityBestEffort}`);
  }
});

test("the model reproduces the paper's Table 1 and the utility numbers of sections 3 and 4.3", () => {
  for (const r of result.rows.filter((x) => x.figure === 'table1')) {
    // The paper prints two decimals, truncated (9.00 shows as 8.99).
    assert.ok(Math.abs(num(r.model) - num(r.paperSimulation)) < 0.02, `p=${r.p}: model ${r.model} vs paper ${r.paperSimulation}`);
  }
  const at = (p: number) => result.rows.find((r) => r.figure === 'table1' && r.p === p)!;
  assert.ok(Math.abs(num(at(0.1).utilityBestEffort) - 0.1) < 1e-3);
  assert.ok(num(at(0.1).utilityPelsBound) >= 0.96 && num(at(0.01).utilityPelsBound) >= 0.996);
});

test('best-effort useful packets saturate at (1-p)/p while PELS utility stays near 1 (Fig. 2)', () => {
  const fig2 = result.rows.filter((r) => r.figure === 'fig2');
  const big = fig2.find((r) => r.H === 1000)!;
  assert.ok(Math.abs(num(big.model) - 9) < 1e-6);
  assert.ok(num(big.utilityBestEffort) < 0.011 && num(big.utilityPelsBound) > 0.96); // (1-p)/(pH) = 0.01
  const u = fig2.map((r) => num(r.utilityBestEffort));
  assert.ok(u.every((v, i) => i === 0 || v < u[i - 1]!), 'utility falls as H grows');
});
