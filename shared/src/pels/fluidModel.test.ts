import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFluidModel, type FluidModelParams } from './fluidModel';
import { MKC_PAPER_GAINS, mkcStationaryKbps, type MkcGains } from './mkc';

const C = 2000;

function model(delays: readonly number[], gains: MkcGains, extra: Partial<FluidModelParams> = {}): FluidModelParams {
  return {
    capacityKbps: C,
    // Different starting rates: fairness must not depend on where a flow starts.
    flows: delays.map((delaySteps, i) => ({ delaySteps, initialKbps: 128 + 200 * i })),
    gains,
    minKbps: 10,
    maxKbps: 20 * C,
    steps: 3000,
    ...extra,
  };
}

/** Largest relative distance from the target over the last `window` steps, any flow. */
function tailError(rates: number[][], target: number, window = 200): number {
  let worst = 0;
  for (const row of rates.slice(-window)) for (const r of row) worst = Math.max(worst, Math.abs(r - target) / target);
  return worst;
}

const DELAY_SETUPS = [[1], [7], [1, 7], [3, 7], [1, 3, 7], [1, 3, 7, 2], [7, 7, 3, 1]];

test('N flows with different delays converge from far below to C/N + alpha/beta (Lemmas 5, 6), within 1%', () => {
  for (const beta of [0.5, 1, 1.5]) {
    const gains = { ...MKC_PAPER_GAINS, beta };
    for (const delays of DELAY_SETUPS) {
      const { rates } = runFluidModel(model(delays, gains));
      const err = tailError(rates, mkcStationaryKbps(C, delays.length, gains));
      assert.ok(err < 0.01, `beta=${beta} delays=${delays.join(',')}: off by ${(100 * err).toFixed(2)}%`);
    }
  }
});

test('the fixed point is stable for any 0 < beta < 2 whatever the delays (started 5% off)', () => {
  // Near 2 only locally: from far away the overshoot hits the floor clamp and can lock into a cycle.
  for (const beta of [0.1, 0.5, 1, 1.5, 1.9, 1.99]) {
    const gains = { ...MKC_PAPER_GAINS, beta };
    for (const delays of DELAY_SETUPS) {
      const target = mkcStationaryKbps(C, delays.length, gains);
      const flows = delays.map((delaySteps, i) => ({ delaySteps, initialKbps: target * (i % 2 === 0 ? 0.95 : 1.05) }));
      const { rates } = runFluidModel({ ...model(delays, gains), flows, steps: 20_000 });
      const err = tailError(rates, target);
      assert.ok(err < 0.01, `beta=${beta} delays=${delays.join(',')}: off by ${(100 * err).toFixed(2)}%`);
    }
  }
});

test('at the stationary point the router reports p = N alpha / (beta (C + N alpha / beta))', () => {
  const { loss } = runFluidModel(model([1, 3], MKC_PAPER_GAINS));
  const excess = (2 * 20) / 0.5;
  assert.ok(Math.abs(loss[loss.length - 1]! - excess / (C + excess)) < 1e-6);
});

test('beta = 2.2 is unstable: started 1% off, rates swing far from the fixed point', () => {
  for (const delays of DELAY_SETUPS) {
    const gains = { ...MKC_PAPER_GAINS, beta: 2.2 };
    const target = mkcStationaryKbps(C, delays.length, gains);
    const flows = delays.map((delaySteps) => ({ delaySteps, initialKbps: target * 1.01 }));
    const { rates } = runFluidModel({ ...model(delays, gains), flows });
    const err = tailError(rates, target);
    assert.ok(err > 0.5, `delays=${delays.join(',')}: only ${(100 * err).toFixed(1)}% off`);
  }
});

test('a perturbation at the fixed point grows by |1 - beta| per step for one flow', () => {
  for (const { beta, grows } of [
    { beta: 1.5, grows: false },
    { beta: 2.2, grows: true },
  ]) {
    const gains = { ...MKC_PAPER_GAINS, beta };
    const target = mkcStationaryKbps(C, 1, gains);
    const { rates } = runFluidModel({ ...model([1], gains), flows: [{ delaySteps: 1, initialKbps: target + 1 }], steps: 20 });
    const e20 = Math.abs(rates[20]![0]! - target);
    assert.ok(Math.abs(e20 - Math.abs(1 - beta) ** 20) < 1e-6 * Math.max(1, e20), `beta=${beta}: ${e20}`);
    assert.equal(e20 > 1, grows);
  }
});

test('stepping from the latest rate instead of r(k - D) (classic Kelly) is unstable under delay', () => {
  const { rates } = runFluidModel(model([7], MKC_PAPER_GAINS, { reference: 'latest' }));
  assert.ok(tailError(rates, mkcStationaryKbps(C, 1, MKC_PAPER_GAINS)) > 0.5);
});

test('rates stay within the clamps', () => {
  const { rates } = runFluidModel(model([1, 3], { ...MKC_PAPER_GAINS, beta: 2.2 }, { minKbps: 200, maxKbps: 3000 }));
  for (const row of rates) for (const r of row) assert.ok(r >= 200 && r <= 3000);
});

test('the model rejects setups it cannot run', () => {
  const bad: Array<Partial<FluidModelParams>> = [{ capacityKbps: 0 }, { flows: [] }, { minKbps: 0 }, { flows: [{ delaySteps: 0, initialKbps: 100 }] }, { flows: [{ delaySteps: 1.5, initialKbps: 100 }] }];
  for (const change of bad) assert.throws(() => runFluidModel({ ...model([1], MKC_PAPER_GAINS), ...change }), RangeError, JSON.stringify(change));
});
