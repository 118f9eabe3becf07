import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GRACE_MS, RecoveryTracker } from './recovery';

/** Feeds samples every 250 ms from `from` to `to`: each viewer's counter from its function of time. */
function feed(r: RecoveryTracker, from: number, to: number, counts: Array<(t: number) => number>): void {
  for (let t = from; t <= to; t += 250) r.sample(t, counts.map((f) => f(t)));
}
const playing = (t: number) => Math.floor(t / 1000 * 30);

test('a viewer that never stalls was not hit: 0 once the grace is over, pending before', () => {
  const r = new RecoveryTracker(10_000, 10_000, [playing(10_000)]);
  feed(r, 10_250, 12_000, [playing]);
  assert.equal(r.recoveryMs(12_000), 'pending');
  feed(r, 12_250, 10_000 + GRACE_MS, [playing]);
  assert.equal(r.recoveryMs(10_000 + GRACE_MS), 0);
});

test('a stall of 4 s after a kill: back when 5 frames have come after it, measured from the fault', () => {
  // Frames in flight play for 300 ms after the kill at 10 s, then nothing until 14.3 s, then 30 fps.
  const hit = (t: number) => (t < 10_300 ? playing(t) : t < 14_300 ? playing(10_300) : playing(10_300) + Math.floor(((t - 14_300) / 1000) * 30));
  const r = new RecoveryTracker(10_000, 10_000, [playing(10_000), playing(10_000)]);
  feed(r, 10_250, 20_000, [hit, playing]);
  // The first sample after 14.3 s with 5 new frames: 14.5 s has 6.
  assert.equal(r.recoveryMs(20_000), 4500);
});

test('a player that rejoins counts from 0 again: its frames still count', () => {
  const rejoined = (t: number) => (t < 10_200 ? playing(t) : t < 13_000 ? 0 : Math.floor(((t - 13_000) / 1000) * 30));
  const r = new RecoveryTracker(10_000, 10_000, [playing(10_000)]);
  feed(r, 10_250, 16_000, [rejoined]);
  assert.equal(r.recoveryMs(16_000), 3250);
});

test('slow frames (the base layer alone, 7.5 a second) are decoding again; 2 a second are not', () => {
  const base = (t: number) => (t < 10_000 ? playing(t) : t < 12_000 ? playing(10_000) : playing(10_000) + Math.floor(((t - 12_000) / 1000) * 7.5));
  const trickle = (t: number) => (t < 10_000 ? playing(t) : t < 12_000 ? playing(10_000) : playing(10_000) + Math.floor(((t - 12_000) / 1000) * 2));
  const r = new RecoveryTracker(10_000, 10_000, [playing(10_000), playing(10_000)]);
  feed(r, 10_250, 20_000, [base, trickle]);
  assert.equal(r.recoveryMs(20_000), 'pending');
  const one = new RecoveryTracker(10_000, 10_000, [playing(10_000)]);
  feed(one, 10_250, 20_000, [base]);
  assert.equal(one.recoveryMs(20_000), 2750);
});

test('a fault that lasts (a stopped process, 5 s): recovery is measured from its end', () => {
  const stopped = (t: number) => (t < 10_000 ? playing(t) : t < 16_000 ? playing(10_000) : playing(10_000) + Math.floor(((t - 16_000) / 1000) * 30));
  const r = new RecoveryTracker(10_000, 15_000, [playing(10_000)]);
  feed(r, 10_250, 20_000, [stopped]);
  assert.equal(r.recoveryMs(20_000), 1250);
});
