import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControlLoop } from './controlLoop';
import { GAMMA_DEFAULTS, gammaStep } from '../pels/gammaController';
import { MKC_PAPER_GAINS, mkcStep } from '../pels/mkc';
import { MKC_STARTUP_DEFAULTS } from '../pels/mkcStartup';

const MKC = { ...MKC_PAPER_GAINS, initialKbps: 300, minKbps: 250, maxKbps: 1500 };

test('a fresh event steps both MKC and gamma with the same p', () => {
  const loop = new ControlLoop({ mkc: MKC });
  assert.equal(loop.onFeedback({ kind: 'rtcp', epoch: 100, lossFraction: 0.2, atMs: 1000 }), 'fresh');
  assert.equal(loop.rateKbps, mkcStep(300, 0.2, MKC_PAPER_GAINS));
  assert.equal(loop.gamma, gammaStep(0.5, 0.2, GAMMA_DEFAULTS));
});

test('stale, duplicate and invalid feedback change nothing', () => {
  const loop = new ControlLoop({ mkc: MKC });
  loop.onFeedback({ kind: 'rtcp', epoch: 100, lossFraction: 0.2, atMs: 1000 });
  const before = { rate: loop.rateKbps, gamma: loop.gamma };
  const verdicts = [
    loop.onFeedback({ kind: 'rtcp', epoch: 100, lossFraction: 0.9, atMs: 2000 }),
    loop.onFeedback({ kind: 'rtcp', epoch: 99, lossFraction: 0.9, atMs: 2000 }),
    loop.onFeedback({ kind: 'rtcp', epoch: 101, lossFraction: Number.NaN, atMs: 2000 }),
  ];
  assert.deepEqual(verdicts, ['stale', 'stale', 'invalid']);
  assert.deepEqual({ rate: loop.rateKbps, gamma: loop.gamma }, before);
});

test('router feedback below capacity ramps the rate up while gamma sees no loss', () => {
  const loop = new ControlLoop({ mkc: MKC });
  for (let z = 1; z <= 3; z++) loop.onFeedback({ kind: 'router', epoch: z, lossFraction: -1, atMs: z * 100, origin: 'r1' });
  let r = 300;
  for (let z = 1; z <= 3; z++) r = mkcStep(r, -1, MKC_PAPER_GAINS);
  assert.equal(loop.rateKbps, r);
  assert.ok(loop.gamma < 0.5 && loop.gamma >= GAMMA_DEFAULTS.gammaLow);
});

test('router feedback steps gamma with the enhancement-layer loss, so red loss settles at p_thr (Lemma 4)', () => {
  const loop = new ControlLoop({ mkc: MKC }); // base (floor) 250 kb/s, rate 300 kb/s
  loop.onFeedback({ kind: 'router', epoch: 1, lossFraction: 0.05, atMs: 1000 });
  assert.equal(loop.rateKbps, mkcStep(300, 0.05, MKC_PAPER_GAINS));
  assert.equal(loop.gamma, gammaStep(0.5, (0.05 * 300) / (300 - 250), GAMMA_DEFAULTS));
  // Held at p, gamma * enhancement = p * r / p_thr: the red bytes lose exactly p_thr of themselves. The floor moved: the base is now 100 kb/s.
  const held = new ControlLoop({ mkc: MKC });
  held.setRateBounds(100, 400, 0);
  for (let z = 1; z <= 200; z++) held.onFeedback({ kind: 'router', epoch: z, lossFraction: 0.2, atMs: z, sentAtMs: 0 });
  const r = 300; // the initial rate: every event refers to traffic sent at 0 ms
  const redLoss = (0.2 * r) / (held.gamma * (r - 100));
  assert.ok(Math.abs(redLoss - GAMMA_DEFAULTS.pThr) < 1e-9, `red loss ${redLoss}`);
});

test('sentAtMs makes MKC step from the rate in effect when the traffic was sent (eq. 8)', () => {
  const loop = new ControlLoop({ mkc: MKC });
  loop.onFeedback({ kind: 'router', epoch: 1, lossFraction: -1, atMs: 1000 }); // 300 -> 470 from 1000 ms
  loop.onFeedback({ kind: 'router', epoch: 2, lossFraction: -1, atMs: 2000 }); // 470 -> 725 from 2000 ms
  loop.onFeedback({ kind: 'router', epoch: 3, lossFraction: 0.1, atMs: 3000, sentAtMs: 1500 });
  assert.equal(loop.rateKbps, mkcStep(470, 0.1, MKC_PAPER_GAINS));
  loop.onFeedback({ kind: 'router', epoch: 4, lossFraction: 0.1, atMs: 4000, sentAtMs: 0 });
  assert.equal(loop.rateKbps, mkcStep(300, 0.1, MKC_PAPER_GAINS));
});

test('moving bounds clamp the rate at once', () => {
  const loop = new ControlLoop({ mkc: MKC });
  loop.setRateBounds(400, 1500, 10);
  assert.equal(loop.rateKbps, 400);
  loop.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 1, atMs: 20, sentAtMs: 15 });
  assert.equal(loop.rateKbps, 400);
});

test('start-up: RTCP reports double the rate until the first loss, which halves it and holds it there a while', () => {
  const loop = new ControlLoop({ mkc: { ...MKC, initialKbps: 250, startup: MKC_STARTUP_DEFAULTS } });
  loop.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1000 });
  loop.onFeedback({ kind: 'rtcp', epoch: 2, lossFraction: 0, atMs: 2000 });
  assert.equal(loop.rateKbps, 1000);
  assert.equal(loop.inStartup, true);
  loop.onFeedback({ kind: 'rtcp', epoch: 3, lossFraction: 0.4, atMs: 3000 });
  assert.equal(loop.rateKbps, 500);
  assert.equal(loop.inStartup, false);
  loop.onFeedback({ kind: 'rtcp', epoch: 4, lossFraction: 0, atMs: 4000 });
  assert.equal(loop.rateKbps, mkcStep(500, 0, MKC_PAPER_GAINS));
  // Reports within the hold still describe the overshoot: no cut below the landing.
  loop.onFeedback({ kind: 'rtcp', epoch: 5, lossFraction: 1, atMs: 5000 });
  assert.equal(loop.rateKbps, 500);
  loop.onFeedback({ kind: 'rtcp', epoch: 6, lossFraction: 1, atMs: 3000 + MKC_STARTUP_DEFAULTS.holdMs });
  assert.equal(loop.rateKbps, mkcStep(500, 1, MKC_PAPER_GAINS));
});

test('start-up: a report of base-layer loss ends it, one of invalid base loss is ignored', () => {
  const loop = new ControlLoop({ mkc: { ...MKC, startup: MKC_STARTUP_DEFAULTS } });
  assert.equal(loop.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1000, baseLossFraction: Number.NaN }), 'invalid');
  assert.equal(loop.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1000, baseLossFraction: 1.5 }), 'invalid');
  assert.equal(loop.rateKbps, 300);
  loop.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0, atMs: 1000, baseLossFraction: 0.02 });
  assert.equal(loop.inStartup, false);
  assert.equal(loop.rateKbps, MKC.minKbps); // half of 300, clamped to the floor
});

test('start-up with router feedback: growth per round trip (from r(k - D)), landing on half of it', () => {
  const loop = new ControlLoop({ mkc: { ...MKC, maxKbps: 5000, startup: MKC_STARTUP_DEFAULTS } });
  // Three samples 100 ms apart all measure traffic sent at 0 ms: the rate then, 300, doubled each time; not 300 * 2^3.
  for (let z = 1; z <= 3; z++) loop.onFeedback({ kind: 'router', epoch: z, lossFraction: 0.01, atMs: z * 100, sentAtMs: 0 });
  assert.equal(loop.rateKbps, 600);
  loop.onFeedback({ kind: 'router', epoch: 4, lossFraction: 0.01, atMs: 400, sentAtMs: 300 });
  assert.equal(loop.rateKbps, 1200);
  loop.onFeedback({ kind: 'router', epoch: 5, lossFraction: 0.25, atMs: 500, sentAtMs: 450 });
  assert.equal(loop.rateKbps, 600);
  assert.equal(loop.inStartup, false);
});
