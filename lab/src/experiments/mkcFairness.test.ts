import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkcFairnessExperiment } from './mkcFairness';

const options = { seed: 1, short: true };
const result = mkcFairnessExperiment.run(options);
const num = (v: unknown): number => v as number;

test('alone, F1 ramps up exponentially to C + alpha/beta within a second', () => {
  for (const s of result.summary) {
    assert.ok(Math.abs(num(s.f1AloneKbps) / num(s.modelAloneKbps) - 1) < 0.03, `${s.case}: ${s.f1AloneKbps}`);
    assert.ok(num(s.f1RampS) < 1, `${s.case}: ramp ${s.f1RampS} s`);
  }
});

test('two flows converge to the stationary point C/N + alpha/beta, with equal and with unequal RTTs (Lemma 6)', () => {
  assert.deepEqual(result.summary.map((s) => [s.rttF1Ms, s.rttF2Ms]), [[20, 20], [20, 200]]);
  for (const s of result.summary) {
    for (const r of [s.f1Kbps, s.f2Kbps]) assert.ok(Math.abs(num(r) / num(s.modelFairKbps) - 1) < 0.08, `${s.case}: ${r} kb/s`);
    assert.ok(num(s.jain) > 0.99, `${s.case}: Jain ${s.jain}`);
    assert.notEqual(s.fairAfterJoinS, null, `${s.case} never became fair`);
  }
});

test('the same seed gives the same run', () => {
  assert.deepEqual(mkcFairnessExperiment.run(options).rows, result.rows);
});
