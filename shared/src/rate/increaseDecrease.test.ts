import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AIMD_PARAMS,
  IIAD_PARAMS,
  ISCC_PARAMS,
  IncreaseDecreaseController,
  SQRT_PARAMS,
  binomialErrors,
  binomialFluidLoss,
  binomialLaw,
  binomialScalability,
  isccConstants,
  isccErrors,
  isccLaw,
} from './increaseDecrease';

const close = (actual: number, expected: number, rel: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what} ${actual} vs ${expected}`);

/** 1000-byte packets over a 100 ms round trip: one packet per RTT is 80 kb/s. */
const Q = 80;
const OPTIONS = { initialKbps: 400, minKbps: 10, maxKbps: 5000, initialRttMs: 100 };
/** The textbook ISCC choice, (k, l) = (-1.5, 2), m_D = 2, m_I = 8: fluid loss limit 3.1%. */
const ISCC_TEXTBOOK = { k: -1.5, l: 2, mD: 2, mI: 8 };
const aimd = () => new IncreaseDecreaseController('aimd', binomialLaw(AIMD_PARAMS, 1000), OPTIONS);

test('the binomial window laws in rate form: R_I = alpha q^(k+1) r^-k, R_D = beta q^(1-l) r^l', () => {
  const ctx = { rttMs: 100, capacityKbps: 1544 };
  const r = 400;
  close(binomialLaw(AIMD_PARAMS, 1000).increaseKbps(r, ctx), Q, 1e-12, 'AIMD increase: one packet per RTT');
  close(binomialLaw(AIMD_PARAMS, 1000).decreaseKbps(r, ctx), r / 2, 1e-12, 'AIMD decrease: half');
  close(binomialLaw(IIAD_PARAMS, 1000).increaseKbps(r, ctx), (Q * Q) / r, 1e-12, 'IIAD increase: q^2 / r');
  close(binomialLaw(IIAD_PARAMS, 1000).decreaseKbps(r, ctx), (2 / 3) * Q, 1e-12, 'IIAD decrease: 2/3 packet per RTT');
  close(binomialLaw(SQRT_PARAMS, 1000).increaseKbps(r, ctx), Q ** 1.5 / Math.sqrt(r), 1e-12, 'SQRT increase');
  close(binomialLaw(SQRT_PARAMS, 1000).decreaseKbps(r, ctx), (2 / 3) * Math.sqrt(Q * r), 1e-12, 'SQRT decrease');
  // ISCC: lambda r^1.5 = C^-0.5 r^1.5 / m_I, sigma r^2 = r^2 / (m_D C).
  close(isccLaw(ISCC_TEXTBOOK).increaseKbps(r, ctx), r ** 1.5 / Math.sqrt(1544) / 8, 1e-12, 'ISCC increase');
  close(isccLaw(ISCC_TEXTBOOK).decreaseKbps(r, ctx), (r * r) / (2 * 1544), 1e-12, 'ISCC decrease');
  close(isccLaw(ISCC_PARAMS).decreaseKbps(1544, ctx), 1544 / ISCC_PARAMS.mD, 1e-12, 'ISCC decrease at r = C: C / m_D');
});

test('parameters that do not converge or can go negative are refused with the reason', () => {
  assert.deepEqual(binomialErrors(AIMD_PARAMS), []);
  assert.deepEqual(binomialErrors(IIAD_PARAMS), []);
  assert.deepEqual(isccErrors(ISCC_PARAMS), []);
  assert.deepEqual(isccErrors(ISCC_TEXTBOOK), []);
  assert.match(binomialErrors({ k: 0, l: 0, alpha: 1, beta: 1 }).join(), /k \+ l must be > 0/);
  assert.match(binomialErrors({ k: -1.5, l: 2, alpha: 1, beta: 0.5 }).join(), /l must be <= 1/);
  assert.match(isccErrors({ k: -1, l: 2, mD: 2, mI: 8 }).join(), /l \+ 2k \+ 1 must be 0/);
  assert.match(isccErrors({ ...ISCC_PARAMS, mD: 1 }).join(), /mD must be >= l/);
  assert.throws(() => binomialLaw({ k: 0, l: 0, alpha: 1, beta: 1 }, 1000), /invalid binomial parameters/);
});

test('AIMD adds one packet per RTT for each RTT that passed and halves on loss', () => {
  const c = aimd();
  assert.equal(c.onTimer(0), 100);
  c.onTimer(100);
  close(c.rateKbps, 400 + Q, 1e-12);
  // Feedback comes a second later: ten round trips without loss, ten increases.
  c.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1100 });
  close(c.rateKbps, 400 + 11 * Q, 1e-12);
  c.onFeedback({ kind: 'rtcp', epoch: 2, lossFraction: 0.02, atMs: 1150, sentAtMs: 1120 });
  close(c.rateKbps, (400 + 11 * Q) / 2, 1e-12);
  assert.deepEqual(c.feedbackCounts, { used: 2, ignored: 0 });
});

test('one decrease per loss event: losses of packets sent before the last decrease do not decrease again', () => {
  const c = aimd();
  c.onTimer(0);
  c.onFeedback({ kind: 'nack', lostSeqs: [10], sendTimesMs: [40], atMs: 90 });
  assert.equal(c.rateKbps, 200);
  c.onFeedback({ kind: 'nack', lostSeqs: [11, 12], sendTimesMs: [45, 50], atMs: 120 });
  assert.equal(c.rateKbps, 200, 'same episode: sent before the decrease at 90 ms');
  c.onFeedback({ kind: 'nack', lostSeqs: [30], sendTimesMs: [95], atMs: 160 });
  assert.equal(c.rateKbps, 200, 'sent after the decrease, but less than a round trip after it');
  c.onFeedback({ kind: 'nack', lostSeqs: [31], sendTimesMs: [100], atMs: 190 });
  assert.equal(c.rateKbps, 100, 'sent after the decrease, a round trip later: a new loss event (and no increase for a round trip with losses)');
  // The increase clock restarts at the decrease; the round trip of the decrease has a loss, so the next increase is two round trips later.
  assert.equal(c.onTimer(200), 290);
  c.onTimer(290);
  assert.equal(c.rateKbps, 100);
  c.onTimer(390);
  close(c.rateKbps, 100 + Q, 1e-12);
});

test('RTT samples set the round trip the steps are counted in', () => {
  const c = aimd();
  c.onFeedback({ kind: 'rtt', rttMs: 40, atMs: 0 });
  assert.equal(c.rttMs, 40);
  c.onFeedback({ kind: 'rtt', rttMs: 48, atMs: 1 });
  assert.equal(c.rttMs, 41);
  c.onFeedback({ kind: 'rtt', rttMs: -5, atMs: 2 });
  assert.deepEqual(c.feedbackCounts, { used: 2, ignored: 1 });
  c.onFeedback({ kind: 'dispersion', ratio: 0, pairs: 3, atMs: 3 });
  assert.equal(c.feedbackCounts.ignored, 2);
});

test('the rate stays within moving bounds, and ISCC never above the capacity', () => {
  const c = aimd();
  c.onTimer(0);
  c.onTimer(100_000);
  assert.equal(c.rateKbps, 5000);
  c.setBounds(100, 1000);
  assert.equal(c.rateKbps, 1000);
  // A loss every round trip: r -> (r + 80) / 2 would settle at 80 kb/s, under the floor.
  for (let i = 1; i <= 20; i++) c.onFeedback({ kind: 'nack', lostSeqs: [i], sendTimesMs: [100_000 + 100 * i - 50], atMs: 100_000 + 100 * i });
  assert.equal(c.rateKbps, 100);
  const iscc = new IncreaseDecreaseController('iscc', isccLaw(ISCC_PARAMS), { ...OPTIONS, capacityKbps: 1544 });
  iscc.onTimer(0);
  iscc.onTimer(600_000);
  assert.equal(iscc.rateKbps, 1544);
  // Router feedback that names a capacity replaces the configured one.
  iscc.onFeedback({ kind: 'router', epoch: 1, lossFraction: -0.5, atMs: 600_001, capacityKbps: 1000 });
  iscc.onTimer(600_200);
  assert.equal(iscc.rateKbps, 1000);
  iscc.onFeedback({ kind: 'router', epoch: 2, lossFraction: 0.1, atMs: 600_300, capacityKbps: 1000 });
  close(iscc.rateKbps, 1000 - 1000 / ISCC_PARAMS.mD, 1e-12, 'ISCC decrease at r = C: C / m_D');
});

test('fluid loss: the AIMD case is TCP\'s 8 n^2 / (3 C^2) and ISCC tends to m_D / m_I^2', () => {
  for (const n of [1, 2, 10, 50]) {
    for (const c of [100, 386]) close(binomialFluidLoss(n, c, { k: 0, l: 1, lambda: 1, sigma: 0.5 }), (8 * n * n) / (3 * c * c), 1e-9, `AIMD n=${n} C=${c}`);
  }
  const C = 1544;
  const iscc = { k: ISCC_TEXTBOOK.k, l: ISCC_TEXTBOOK.l, ...isccConstants(ISCC_TEXTBOOK, C) };
  close(binomialFluidLoss(1e12, C, iscc), ISCC_TEXTBOOK.mD / ISCC_TEXTBOOK.mI ** 2, 1e-9, 'ISCC limit');
  close(binomialFluidLoss(2, C, iscc), 0.0292, 0.01, 'ISCC p_2');
  close(binomialFluidLoss(50, C, iscc), 0.0312, 0.01, 'ISCC p_50');
  const ours = { k: ISCC_PARAMS.k, l: ISCC_PARAMS.l, ...isccConstants(ISCC_PARAMS, C) };
  close(binomialFluidLoss(1e15, C, ours), ISCC_PARAMS.mD / ISCC_PARAMS.mI ** 2, 1e-3, 'ISCC limit, our parameters (k + l = 0.1 approaches it slowly)');
  // Scale-free: the same loss at any capacity.
  close(binomialFluidLoss(7, 1e6, { ...iscc, ...isccConstants(ISCC_TEXTBOOK, 1e6) }), binomialFluidLoss(7, C, iscc), 1e-9, 'ISCC at another C');
});

test('s_n = p_n / p_1 grows as n^(l + 2k + 1), and the closed form matches the ratio for small decreases', () => {
  for (const [k, l] of [[0, 1], [1, 0], [0.5, 0.5], [-1.5, 2]] as const) {
    const c = { k, l, lambda: 1, sigma: 1e-4 * 100 ** (1 - l) };
    for (const n of [2, 10, 50]) {
      const ratio = binomialFluidLoss(n, 100, c) / binomialFluidLoss(1, 100, c);
      close(binomialScalability(n, 100, c), ratio, 1e-5, `k=${k} l=${l} n=${n}`);
      close(binomialScalability(n, 100, { ...c, sigma: 1e-12 }), n ** (l + 2 * k + 1), 1e-9, `power k=${k} l=${l} n=${n}`);
    }
  }
});
