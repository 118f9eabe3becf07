import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MKC_PAPER_GAINS, MkcController, mkcStep, validateMkcParams, type MkcParams } from './mkc';
import { DELAY_EXIT_REPORTS, isStartupLoss, MKC_STARTUP_DEFAULTS, MkcStartup, startupExitKbps, validateMkcStartupParams } from './mkcStartup';

const PARAMS: MkcParams = { ...MKC_PAPER_GAINS, initialKbps: 250, minKbps: 250, maxKbps: 1250, startup: MKC_STARTUP_DEFAULTS };

test('loss-free feedback doubles the rate from the first report, up to the ceiling', () => {
  const c = new MkcController(PARAMS);
  const rates = [1, 2, 3, 4].map(() => c.update(0));
  assert.deepEqual(rates, [500, 1000, 1250, 1250]);
  assert.equal(c.inStartup, true);
  // Without start-up: eq. 8's alpha per report.
  const plain = new MkcController({ ...PARAMS, startup: undefined });
  assert.deepEqual([1, 2, 3].map(() => plain.update(0)), [270, 290, 310]);
  assert.equal(plain.inStartup, false);
});

test('growth applies to the rate the measured traffic was sent at, and is never slower than eq. 8', () => {
  const c = new MkcController(PARAMS);
  assert.equal(c.update(0, 300), 600);
  // Router feedback far below capacity: eq. 8 (r + alpha - beta r p) outgrows doubling, and wins.
  const fast = new MkcController(PARAMS);
  assert.equal(fast.update(-4, 250), mkcStep(250, -4, MKC_PAPER_GAINS));
  assert.ok(fast.rateKbps > 500);
});

test('p at or below the threshold is no loss; above it, start-up ends and halves the rate the loss was measured at', () => {
  const c = new MkcController(PARAMS);
  c.update(0); // 500
  assert.equal(c.update(MKC_STARTUP_DEFAULTS.lossThreshold), 1000);
  assert.equal(c.inStartup, true);
  // Back to 500, the rate before the last doubling, below eq. 8's 1000 + 20 - 0.5 * 1000 * 0.1 = 970.
  assert.equal(c.update(0.1), 500);
  assert.equal(c.inStartup, false);
});

test('any base-layer loss ends start-up, whatever p says', () => {
  const c = new MkcController(PARAMS);
  c.update(0); // 500
  assert.equal(c.update(0, 500, { baseLoss: 0.01 }), 250);
  assert.equal(c.inStartup, false);
});

test('round trips more than delayExitMs above the least seen in DELAY_EXIT_REPORTS feedbacks in a row end start-up as a loss does; fewer pause the growth; at or below it, growth goes on', () => {
  const c = new MkcController(PARAMS);
  const late = 21 + MKC_STARTUP_DEFAULTS.delayExitMs!;
  assert.equal(c.update(0, 250, { rttMs: 40 }), 500);
  assert.equal(c.update(0, 500, { rttMs: 20 }), 1000, 'a shorter round trip: the new least');
  assert.equal(c.update(0, 600, { rttMs: 20 + MKC_STARTUP_DEFAULTS.delayExitMs! }), 1200, 'at the margin: no exit');
  assert.equal(c.update(0, 600, { rttMs: late }), mkcStep(600, 0, MKC_PAPER_GAINS), 'one late report: eq. 8, no doubling');
  assert.equal(c.update(0, 600, { rttMs: late }), mkcStep(600, 0, MKC_PAPER_GAINS), 'two: the same');
  assert.equal(c.update(0, 600, { rttMs: 20 }), 1200, 'back within the margin: growth again');
  assert.equal(c.inStartup, true);
  for (let k = 1; k < DELAY_EXIT_REPORTS; k++) c.update(0, 1200, { rttMs: late + k });
  assert.equal(c.inStartup, true);
  assert.equal(c.update(0, 1200, { rttMs: late }), startupExitKbps(1200, mkcStep(1200, 0, MKC_PAPER_GAINS), 2), 'all of the last few late: the exit');
  assert.equal(c.inStartup, false);
  // Without round trips (the lab's paths, router feedback) nothing changes.
  const plain = new MkcController(PARAMS);
  assert.deepEqual([1, 2].map(() => plain.update(0)), [500, 1000]);
});

test('after the first loss eq. 8 steps, and loss-free feedback never brings start-up back', () => {
  const c = new MkcController(PARAMS);
  c.update(0); // 500
  c.update(0); // 1000
  c.update(0.3); // 500
  for (let k = 0; k < 5; k++) c.update(0);
  assert.equal(c.rateKbps, 500 + 5 * MKC_PAPER_GAINS.alphaKbps);
  assert.equal(c.inStartup, false);
  c.setBounds(100, 2000);
  assert.equal(c.update(0), 620);
});

test('for holdMs after the landing eq. 8 may raise the rate but not cut below the landing; then eq. 8 alone', () => {
  const c = new MkcController(PARAMS);
  c.update(0, 250, { atMs: 1000 }); // 500
  c.update(0, 500, { atMs: 2000 }); // 1000
  // The first loss often reads as p = 1 (a starved stream sends no report): still half, not eq. 8's floor.
  assert.equal(c.update(1, 1000, { atMs: 3000 }), 500);
  // Still the overshoot: eq. 8 from 500 with p = 1 would be 270.
  assert.equal(c.update(1, 500, { atMs: 4000 }), 500);
  assert.equal(c.update(0, 500, { atMs: 5000 }), 520);
  assert.equal(c.update(1, 520, { atMs: 5500 }), 500);
  assert.equal(c.inStartup, false);
  // The hold is over at landing + holdMs: eq. 8 alone, start-up never again.
  assert.equal(c.update(1, 500, { atMs: 3000 + MKC_STARTUP_DEFAULTS.holdMs }), 270);
  assert.equal(c.update(0, 270, { atMs: 7000 }), 290);
});

test('feedback without a time gets no hold', () => {
  const c = new MkcController(PARAMS);
  c.update(0); // 500
  c.update(0); // 1000
  c.update(1); // 500
  assert.equal(c.update(1), 270);
});

test('the landing never goes below the floor, nor above eq. 8', () => {
  const c = new MkcController(PARAMS);
  assert.equal(c.update(1), PARAMS.minKbps);
  assert.equal(c.inStartup, false);
  assert.equal(startupExitKbps(1000, 1020, 2), 500);
  assert.equal(startupExitKbps(1000, 1020, 4), 250);
  // eq. 8 cuts deeper (beta > 1): eq. 8 it is.
  assert.equal(startupExitKbps(1000, 400, 2), 400);
});

test('router feedback: the same landing, from the rate the measured traffic was sent at', () => {
  const s = new MkcStartup(MKC_STARTUP_DEFAULTS);
  assert.equal(s.next(1200, mkcStep(1200, 0.25, MKC_PAPER_GAINS), { p: 0.25 }), 600);
  assert.equal(s.isActive, false);
  assert.equal(s.next(1000, 123, { p: -1 }), 123);
});

test('isStartupLoss: p past the threshold or any base loss', () => {
  const t = MKC_STARTUP_DEFAULTS;
  assert.equal(isStartupLoss({ p: 0 }, t), false);
  assert.equal(isStartupLoss({ p: -3 }, t), false);
  assert.equal(isStartupLoss({ p: t.lossThreshold }, t), false);
  assert.equal(isStartupLoss({ p: t.lossThreshold + 0.001 }, t), true);
  assert.equal(isStartupLoss({ p: 0, baseLoss: 0 }, t), false);
  assert.equal(isStartupLoss({ p: 0, baseLoss: 0.001 }, t), true);
});

test('parameters are checked, alone and inside the MKC parameters', () => {
  const ok = MKC_STARTUP_DEFAULTS;
  assert.deepEqual(validateMkcStartupParams(ok), []);
  assert.match(validateMkcStartupParams({ ...ok, growth: 1 }).join(), /growth must be a finite number > 1; got 1/);
  assert.match(validateMkcStartupParams({ ...ok, growth: Number.NaN }).join(), /growth/);
  assert.match(validateMkcStartupParams({ ...ok, lossThreshold: 1 }).join(), /lossThreshold must be in \[0, 1\); got 1/);
  assert.match(validateMkcStartupParams({ ...ok, lossThreshold: -0.1 }).join(), /lossThreshold/);
  assert.match(validateMkcStartupParams({ ...ok, holdMs: -1 }).join(), /holdMs must be a finite number >= 0; got -1/);
  assert.match(validateMkcStartupParams({ ...ok, delayExitMs: Number.NaN }).join(), /delayExitMs must be a finite number >= 0; got NaN/);
  assert.match(validateMkcParams({ ...PARAMS, startup: { ...ok, growth: 0.5 } }).join(), /startup growth/);
  assert.throws(() => new MkcController({ ...PARAMS, startup: { ...ok, lossThreshold: 2 } }), /lossThreshold/);
});
