import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gammaStabilityExperiment } from './gammaStability';

const result = gammaStabilityExperiment.run({ seed: 1, short: true });

test('gamma converges to p/p_thr for 0 < sigma < 2 and does not for sigma > 2 (Lemma 2, Fig. 5)', () => {
  for (const s of result.summary) {
    const sigma = s.sigma as number;
    if (sigma < 2) {
      assert.ok((s.errorLast as number) < 1e-3, `sigma ${sigma}: error ${s.errorLast}`);
      assert.notEqual(s.stepsToConverge, null);
    } else {
      assert.equal(s.stepsToConverge, null, `sigma ${sigma} must not converge`);
      assert.ok(Math.abs(s.unclampedLast as number) > 10, `bare eq. 4 diverges at sigma ${sigma}`);
      assert.ok((s.controllerSwing as number) > 0.5, `the clamped controller keeps swinging at sigma ${sigma}`);
    }
  }
});

test("the product's controller stays within [gamma_low, 1] whatever sigma", () => {
  for (const r of result.rows) assert.ok((r.gamma as number) >= 0.05 - 1e-12 && (r.gamma as number) <= 1, `sigma ${r.sigma} k ${r.k}: ${r.gamma}`);
});
