import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeBoard } from './probeBoard';
import { mulberry32 } from './syntheticStream';
import { RENDITION_POLICY_DEFAULTS, RenditionPolicy, probeBoardFor, validateRenditionPolicyParams, type RenditionPolicyParams } from './renditionPolicy';

const P: RenditionPolicyParams = { margin: 0.5, hysteresis: 0.5, upHoldMs: 1000, minDwellMs: 2000, maxDwellMs: 8000, failWindowMs: 10_000, baseLossLimit: 0.05, switchGraceMs: 0, probeAfterReports: 3, probeLossLimit: 0.1, probe: true, dwellJitter: 0, probeHoldMs: 4000, baseWindowMs: 0 };
/** Base rates: the top rendition's base 240 kb/s (down below 360, up at 480), the low one's 60 (down below 90). */
const BASES = [240, 60];

/** Applies the target as a switch at once (a keyframe right away). */
function step(p: RenditionPolicy, rate: number, now: number, bases: readonly (number | null)[] = BASES): number {
  const t = p.target(rate, bases, now);
  p.switched(t, now);
  return t;
}

test('down at once below the base rate plus the margin; not at or above it', () => {
  const p = new RenditionPolicy(P, 2, 0, 0, mulberry32(1));
  assert.equal(p.target(360, BASES, 100), 0);
  assert.equal(p.target(359, BASES, 200), 1);
  // The target is not a switch: the policy stays until told.
  assert.equal(p.current, 0);
});

test('base-layer loss above the limit moves down one rendition whatever the rate, and holds an up switch back', () => {
  const p = new RenditionPolicy(P, 3, 0, 0, mulberry32(1));
  assert.equal(p.target(2000, [240, 60, 15], 0, 0.05), 0);
  assert.equal(p.target(2000, [240, 60, 15], 0, 0.2), 1);
  p.switched(1, 0);
  assert.equal(p.target(2000, [240, 60, 15], 5000, 0.2), 2);
  assert.equal(p.target(2000, [240, 60, 15], 5000, 0), 1);
  assert.equal(p.target(2000, [240, 60, 15], 6000, 0.06), 2);
  assert.equal(p.target(2000, [240, 60, 15], 7000, 0), 1, 'the hold restarted');
  assert.equal(p.target(2000, [240, 60, 15], 8000, 0), 0);
});

test('up only when the rate clears the hysteresis for the hold time and the dwell has passed', () => {
  const p = new RenditionPolicy(P, 2, 0, 0, mulberry32(1));
  assert.equal(step(p, 300, 0), 1);
  // Between the thresholds: stays low however long.
  for (let t = 0; t <= 20_000; t += 500) assert.equal(p.target(470, BASES, t), 1);
  // At the up threshold from 20 s: after the hold (dwell long past).
  assert.equal(p.target(480, BASES, 20_000), 1);
  assert.equal(p.target(480, BASES, 20_999), 1);
  assert.equal(p.target(480, BASES, 21_000), 0);
});

test('a dip below the up threshold restarts the hold', () => {
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1));
  assert.equal(p.target(500, BASES, 5000), 1);
  assert.equal(p.target(400, BASES, 5500), 1);
  assert.equal(p.target(500, BASES, 5600), 1);
  assert.equal(p.target(500, BASES, 6599), 1);
  assert.equal(p.target(500, BASES, 6600), 0);
});

test('the dwell holds an up switch back after the last switch', () => {
  const p = new RenditionPolicy(P, 2, 0, 0, mulberry32(1));
  assert.equal(step(p, 300, 10_000), 1);
  assert.equal(p.target(600, BASES, 10_000), 1);
  assert.equal(p.target(600, BASES, 11_500), 1); // held 1.5 s, dwelt 1.5 s < 2 s
  assert.equal(p.target(600, BASES, 12_000), 0);
});

test('failed probes double the dwell up to the maximum; a probe that holds resets it', () => {
  const p = new RenditionPolicy(P, 2, 0, 0, mulberry32(1));
  let now = 100_000;
  step(p, 300, now);
  const dwells: number[] = [];
  for (let i = 0; i < 4; i++) {
    // Wait for the up switch, then fail it 1 s later.
    while (step(p, 600, now) !== 0) now += 100;
    now += 1000;
    assert.equal(step(p, 300, now), 1);
    dwells.push(p.dwell);
  }
  assert.deepEqual(dwells, [4000, 8000, 8000, 8000]);
  while (step(p, 600, now) !== 0) now += 100;
  // Holds past the fail window: the shortest dwell again, so the next fall and rise are quick.
  now += 10_000;
  assert.equal(step(p, 300, now), 1);
  assert.equal(p.dwell, 2000);
});

test('nothing moves on unknown base rates; with three renditions it goes down to the highest that fits', () => {
  const p = new RenditionPolicy(P, 3, 0, 0, mulberry32(1));
  assert.equal(p.target(10, [null, 60, 15], 0), 0);
  // Below the top's 360 and the middle's 90: the lowest.
  assert.equal(p.target(80, [240, 60, 15], 0), 2);
  assert.equal(p.target(200, [240, 60, 15], 0), 1);
  p.switched(2, 0);
  // Up skips the middle when the top fits.
  assert.equal(p.target(1000, [240, 60, 15], 5000), 2);
  assert.equal(p.target(1000, [240, 60, 15], 6000), 0);
});

test('parameters and indexes are checked', () => {
  assert.deepEqual(validateRenditionPolicyParams(RENDITION_POLICY_DEFAULTS), []);
  assert.match(validateRenditionPolicyParams({ ...P, margin: -1 }).join(), /margin/);
  assert.match(validateRenditionPolicyParams({ ...P, maxDwellMs: 1000 }).join(), /maxDwellMs/);
  assert.throws(() => new RenditionPolicy(P, 2, 2, 0, mulberry32(1)), RangeError);
  assert.throws(() => new RenditionPolicy(P, 0, 0, 0, mulberry32(1)), RangeError);
  assert.throws(() => new RenditionPolicy(P, 2, 0, 0, mulberry32(1)).switched(-1, 0), RangeError);
});

test('base-layer loss right after a move down (the rendition left behind) does not count; after a move up (a probe) it does', () => {
  const p = new RenditionPolicy({ ...P, switchGraceMs: 2000 }, 3, 0, 0, mulberry32(1));
  const bases = [240, 60, 15];
  p.switched(1, 10_000);
  assert.equal(p.target(2000, bases, 11_999, 0.5), 1);
  assert.equal(p.target(2000, bases, 12_000, 0.5), 2);
  p.switched(0, 20_000);
  assert.equal(p.target(2000, bases, 20_500, 0.5), 1);
});

test("right after a switch the base rate counts at most as it was then (the switch's keyframe raises the measured rate)", () => {
  const p = new RenditionPolicy({ ...P, switchGraceMs: 4000 }, 2, 1, 0, mulberry32(1));
  p.target(500, BASES, 10_000);
  p.switched(0, 10_000);
  // The keyframe lifts the measured base from 240 to 300: 400 no longer clears 300 * 1.5, but it cleared 240 * 1.5 at the switch.
  assert.equal(p.target(400, [300, 60], 11_000), 0);
  assert.equal(p.target(300, [300, 60], 11_000), 1, 'below even the base at the switch');
  assert.equal(p.target(400, [200, 60], 11_000), 0);
  assert.equal(p.target(400, [300, 60], 14_000), 1, 'after the grace');
});

test("by default the grace outlasts the base meter's 4 s window, which holds the switch's keyframe until then", () => {
  const p = new RenditionPolicy({ ...RENDITION_POLICY_DEFAULTS, dwellJitter: 0, baseWindowMs: 0 }, 2, 1, 0, mulberry32(1));
  p.target(506, [220, 50], 10_000);
  p.switched(0, 10_000);
  // As on the testbed: up at 2.3x a base of 220; 4.5 s later the keyframe has the base meter at 305 and the rate at 606.
  assert.equal(p.target(606, [305, 50], 14_500), 0);
  assert.equal(p.target(606, [305, 50], 16_500), 1, 'after the grace');
});

test('on a lower rendition, with the rate at its full rate, loss-free reports in a row probe the next one up after the dwell, at its up rate; a lossy one starts the count again', () => {
  const p = new RenditionPolicy(P, 3, 0, 0, mulberry32(1));
  const bases = [240, 60, 15];
  const fulls = [1000, 250, 60];
  p.switched(2, 4000);
  // The rate is far below the up threshold (the viewer sends less than it): only the reports can move it up.
  p.onFeedback(0);
  p.onFeedback(0);
  assert.equal(p.target(100, bases, 5000, 0, fulls), 2);
  p.onFeedback(0.1);
  p.onFeedback(0);
  p.onFeedback(0);
  assert.equal(p.target(100, bases, 5200, 0, fulls), 2);
  p.onFeedback(0);
  assert.equal(p.target(100, bases, 5500, 0, fulls), 2, 'the dwell (2 s) first');
  assert.equal(p.target(50, bases, 6000, 0, fulls), 2, 'below the full rate of its rendition the rate is measured: no room');
  assert.equal(p.target(100, bases, 6000), 2, 'nor while the full rate is unknown');
  assert.equal(p.target(100, bases, 6000, 0, fulls), 1, 'one rendition up');
  assert.equal(p.upKbps(1), 60 * (1 + P.margin + P.hysteresis));
  // Loss right after the switch: a failed probe (down again, dwell doubled); the count starts again in the new rendition.
  p.switched(1, 6000);
  p.switched(2, 7000);
  assert.equal(p.dwell, 4000);
  for (let i = 0; i < 3; i++) p.onFeedback(0);
  assert.equal(p.target(100, bases, 10_999, 0, fulls), 2);
  assert.equal(p.target(100, bases, 11_000, 0, fulls), 1);
});

test('no move up on the rate while the latest receiver report had loss', () => {
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1));
  p.onFeedback(0.2);
  assert.equal(p.target(600, BASES, 5000), 1);
  assert.equal(p.target(600, BASES, 7000), 1);
  p.onFeedback(0);
  assert.equal(p.target(600, BASES, 7000), 1);
  assert.equal(p.target(600, BASES, 8000), 0, 'after the hold, from the loss-free report on');
});


test('a receiver report with loss above the limit in a probe\'s first probeHoldMs fails it at once, whatever the rate', () => {
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1));
  p.switched(0, 10_000);
  p.onFeedback(0.1);
  assert.equal(p.target(2000, BASES, 11_000), 0, 'at the limit');
  p.onFeedback(0.15);
  assert.equal(p.target(2000, BASES, 11_000), 1);
  assert.equal(p.target(2000, BASES, 13_999), 1);
  // Past the hold the probe has been answered: loss at that level is the rate controller's (MKC's equilibrium loss).
  assert.equal(p.target(2000, BASES, 14_000), 0);
});

test('each switch stretches the next dwell by its own draw, so viewers that switched together do not move up together', () => {
  const draws = [0, 0.999, 0.5];
  const ups = draws.map((d) => {
    const p = new RenditionPolicy({ ...P, dwellJitter: 0.5 }, 2, 0, 0, () => d);
    assert.equal(step(p, 300, 10_000), 1);
    p.target(600, BASES, 10_000);
    let t = 10_000;
    while (p.target(600, BASES, t) === 1) t += 100;
    return t - 10_000;
  });
  // Dwell 2 s times 1, ~1.5 and 1.25.
  assert.deepEqual(ups, [2000, 3000, 2500]);
});

test('with probing off a lower rendition at its full rate stays however many loss-free reports come', () => {
  const p = new RenditionPolicy({ ...P, probe: false }, 2, 1, 0, mulberry32(1));
  for (let i = 0; i < 10; i++) p.onFeedback(0);
  assert.equal(p.target(100, BASES, 60_000, 0, [1000, 100]), 1);
  // The rate still moves it up.
  assert.equal(p.target(600, BASES, 60_000, 0, [1000, 100]), 1);
  assert.equal(p.target(600, BASES, 61_000, 0, [1000, 100]), 0);
});

test('viewers sharing a probe board move up one at a time: the second waits out the first one\'s hold', () => {
  const board = new ProbeBoard(P.probeHoldMs);
  const a = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  const b = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  for (const p of [a, b]) p.onFeedback(0);
  assert.equal(a.target(600, BASES, 5000), 1, 'the up hold first');
  assert.equal(b.target(600, BASES, 5000), 1);
  assert.equal(a.target(600, BASES, 6000), 0);
  assert.equal(b.target(600, BASES, 6000), 1, 'a is probing');
  a.switched(0, 6100);
  assert.equal(b.target(600, BASES, 9999), 1, 'held 4 s from a\'s latest ask');
  assert.equal(b.target(600, BASES, 10_100), 0);
});

test('a failed probe frees the board at once', () => {
  const board = new ProbeBoard(P.probeHoldMs);
  const a = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  const b = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  for (const p of [a, b]) p.onFeedback(0);
  a.target(600, BASES, 5000);
  b.target(600, BASES, 5000);
  assert.equal(a.target(600, BASES, 6000), 0);
  a.switched(0, 6000);
  a.onFeedback(0.5);
  assert.equal(a.target(600, BASES, 6500), 1, 'its loss fails it');
  a.switched(1, 6500);
  assert.equal(b.target(600, BASES, 6600), 0);
});

test('loss during another viewer\'s probe doubles this viewer\'s dwell and restarts it, once per probe (shared learning)', () => {
  const board = new ProbeBoard(P.probeHoldMs);
  const prober = {};
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  p.onFeedback(0);
  p.target(600, BASES, 5000);
  assert.equal(board.claim(prober, 5500), true);
  p.onFeedback(0.3);
  p.onFeedback(0);
  assert.equal(p.target(600, BASES, 6000), 1, 'the board is the prober\'s');
  assert.equal(p.dwell, 4000);
  p.onFeedback(0.3);
  p.target(600, BASES, 6500);
  assert.equal(p.dwell, 4000, 'the same probe teaches once');
  board.release(prober, 7000);
  p.onFeedback(0);
  p.target(600, BASES, 8000);
  assert.equal(p.target(600, BASES, 9999), 1, 'the dwell restarted when it learned (at 6000), 4 s');
  assert.equal(p.target(600, BASES, 10_000), 0);
});

test('loss with no probe of another viewer under way teaches nothing', () => {
  const board = new ProbeBoard(P.probeHoldMs);
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
  board.claim({}, 0);
  p.onFeedback(0.3);
  p.target(600, BASES, 4000);
  assert.equal(p.dwell, 2000, 'the other probe\'s hold ended at 4000');
});

test("a loss that begins at another viewer during a probe fails the probe, whatever the prober's own loss; loss that was there before does not", () => {
  const setup = (bBefore: number) => {
    const board = probeBoardFor(P);
    const a = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
    const b = new RenditionPolicy(P, 2, 1, 0, mulberry32(1), board);
    b.onFeedback(bBefore);
    b.target(200, BASES, 4000);
    a.onFeedback(0);
    a.target(600, BASES, 5000);
    assert.equal(a.target(600, BASES, 6000), 0);
    a.switched(0, 6000);
    a.onFeedback(0);
    b.onFeedback(0.4);
    b.target(200, BASES, 7000);
    return { a, b, board };
  };
  const { a, b, board } = setup(0);
  assert.equal(a.target(600, BASES, 7100), 1, "b's loss began during a's probe");
  a.switched(1, 7100);
  assert.equal(board.claim(b, 7200), false, 'the board is quiet');
  assert.equal(setup(0.4).a.target(600, BASES, 7100), 0, "b was losing before: its loss says nothing of a's probe");
});

test('staying is judged on the lowest base rate of the window, moving up (and a probe\'s rate) on the highest', () => {
  const p = new RenditionPolicy({ ...P, baseWindowMs: 10_000 }, 2, 0, 0, mulberry32(1));
  // Readings once a second swinging 200-320 (forced keyframes, the content).
  const readings = [200, 320, 240, 200, 300];
  readings.forEach((b, k) => assert.equal(p.target(420, [b, 60], k * 1000), 0, `stays at 420 >= 1.5 x the lowest (200); reading ${b}`));
  assert.equal(p.target(299, [300, 60], 5000), 1, 'below 1.5 x 200: down');
  p.switched(1, 5000);
  // Up needs 2 x the highest reading in the window (320, read at 1 s and in effect until 2 s): 640, not 2 x 300.
  for (let t = 8000; t <= 11_000; t += 500) assert.equal(p.target(620, [300, 60], t), 1);
  assert.equal(p.upKbps(0), 640);
  // The 320 leaves the window at 12 s: then 2 x 300 holds, after the hold time.
  assert.equal(p.target(620, [300, 60], 12_000), 1);
  assert.equal(p.upKbps(0), 600);
  assert.equal(p.target(620, [300, 60], 13_000), 0);
});

test('no probe rate while the base rate is unknown', () => {
  const p = new RenditionPolicy(P, 2, 1, 0, mulberry32(1));
  p.target(100, [null, 60], 0);
  assert.equal(p.upKbps(0), null);
});

test('with no hysteresis, moving up still reads the highest base rate of the window', () => {
  const p = new RenditionPolicy({ ...P, hysteresis: 0, baseWindowMs: 10_000 }, 2, 1, 0, mulberry32(1));
  p.target(300, [200, 60], 0);
  p.target(300, [320, 60], 1000);
  // 1.5 x 320 = 480: 400 clears the lowest reading (1.5 x 200) but not the highest.
  for (let t = 2000; t <= 6000; t += 500) assert.equal(p.target(400, [200, 60], t), 1);
  assert.equal(p.target(480, [200, 60], 6500), 1);
  assert.equal(p.target(480, [200, 60], 7500), 0);
});
