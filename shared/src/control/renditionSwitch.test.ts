import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProbeBoard } from '../pels/probeBoard';
import type { RenditionPolicyParams } from '../pels/renditionPolicy';
import { mulberry32 } from '../pels/syntheticStream';
import { RenditionSwitch, type RenditionStep } from './renditionSwitch';

const PARAMS: RenditionPolicyParams = { margin: 0.5, hysteresis: 0.5, upHoldMs: 1000, minDwellMs: 2000, maxDwellMs: 8000, failWindowMs: 10_000, baseLossLimit: 0.05, switchGraceMs: 0, probeAfterReports: 3, probeLossLimit: 0.1, probe: true, dwellJitter: 0, probeHoldMs: 4000, baseWindowMs: 0 };

const choice = (count = 2) => new RenditionSwitch(count, PARAMS, mulberry32(1), new ProbeBoard(PARAMS.probeHoldMs), 0);

/** Rendition 1's frame is a keyframe at `keyAt` (and index 0); rendition 0's only at index 0. */
function keyframes(index: number, keyAt: ReadonlySet<number>): boolean[] {
  return [index === 0, index === 0 || keyAt.has(index)];
}

test("moves down at the target rendition's keyframe, asking for it once; sends the current one until then", () => {
  const c = choice();
  c.setRates([240, 60], [1000, 250]);
  const keyAt = new Set([5]);
  const steps: RenditionStep[] = [];
  for (let i = 0; i < 8; i++) steps.push(c.next(keyframes(i, keyAt), i < 2 ? 1000 : 200, true, i * 33));
  assert.deepEqual(steps.map((s) => s.rendition), [0, 0, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual(steps.map((s) => s.keyframeRequest), [null, null, 1, null, null, null, null, null]);
  assert.ok(steps.every((s) => s.probeKbps === null), 'a move down is no probe');
  const s = c.state(8 * 33);
  assert.deepEqual([s.current, s.switches, s.pending, s.pinned], [1, 1, null, null]);
  assert.deepEqual(s.timeMs, [165, 99]);
});

test('no moves during start-up or with one rendition; a target given up before its keyframe is forgotten', () => {
  const c = choice();
  c.setRates([240, 60], [1000, 250]);
  assert.deepEqual(c.next(keyframes(1, new Set([1])), 100, false, 0), { rendition: 0, keyframeRequest: null, probeKbps: null });
  assert.equal(c.next(keyframes(2, new Set()), 100, true, 33).keyframeRequest, 1);
  assert.equal(c.keyframeRendition, 1);
  c.next(keyframes(3, new Set()), 1000, true, 66);
  assert.equal(c.keyframeRendition, 0);
  assert.equal(c.next(keyframes(4, new Set([4])), 1000, true, 99).rendition, 0);
  assert.deepEqual(choice(1).next([false], 1, true, 0), { rendition: 0, keyframeRequest: null, probeKbps: null });
});

test('loss-free reports on the lower rendition move it up at the keyframe, and the rate is raised to what the higher one needs', () => {
  const c = choice();
  c.setRates([240, 60], [1000, 250]);
  const keyAt = new Set([1, 100]);
  assert.equal(c.next(keyframes(1, keyAt), 200, true, 0).rendition, 1);
  // The rate stays at 300, over all the low rendition's 250 (below 240 * 1.5 = 360): three loss-free reports, then the dwell.
  for (let i = 0; i < 3; i++) c.onFeedback(0, 0);
  assert.deepEqual(c.next(keyframes(2, keyAt), 300, true, 1000), { rendition: 1, keyframeRequest: null, probeKbps: null });
  const ask = c.next(keyframes(99, keyAt), 300, true, 2000);
  assert.deepEqual([ask.rendition, ask.keyframeRequest, ask.probeKbps], [1, 0, null]);
  assert.deepEqual(c.next([true, true], 300, true, 2100), { rendition: 0, keyframeRequest: null, probeKbps: 240 * 2 });
});

test('a pinned rendition is held whatever the rate, from its keyframe on, start-up included; auto gives the choice back', () => {
  const c = choice();
  c.setRates([240, 60], [1000, 250]);
  c.pin(1);
  assert.equal(c.state(0).pinned, 1);
  const asked: number[] = [];
  const next = (keys: boolean[], rate: number, settled: boolean, nowMs: number) => {
    const step = c.next(keys, rate, settled, nowMs);
    if (step.keyframeRequest !== null) asked.push(step.keyframeRequest);
    return step.rendition;
  };
  // A rate that keeps the full size under the policy, and not yet settled: the pin moves it all the same, at 1's keyframe.
  assert.equal(next(keyframes(1, new Set([3])), 5000, false, 0), 0);
  assert.equal(next(keyframes(2, new Set([3])), 5000, true, 33), 0);
  assert.equal(next(keyframes(3, new Set([3])), 5000, true, 66), 1);
  for (let i = 4; i < 100; i++) assert.equal(next(keyframes(i, new Set()), 5000, true, i * 33), 1);
  assert.deepEqual(asked, [1]);
  // Pinned to the full size on a rate that would move it down: it stays there.
  c.pin(0);
  assert.equal(next([true, false], 50, true, 3300), 0);
  for (let i = 101; i < 200; i++) assert.equal(next(keyframes(i, new Set([150])), 50, true, i * 33), 0);
  assert.deepEqual(asked, [1, 0]);
  // Auto: the rate chooses again, and 50 kb/s does not carry the full size's base layer.
  c.pin('auto');
  assert.equal(c.state(6600).pinned, null);
  assert.equal(next(keyframes(200, new Set([201])), 50, true, 6600), 0);
  assert.equal(next(keyframes(201, new Set([201])), 50, true, 6633), 1);
  assert.deepEqual(asked, [1, 0, 1]);
});

test('a pin released during start-up goes back to the full size, where start-up keeps every viewer', () => {
  const c = choice();
  c.setRates([240, 60], [1000, 250]);
  c.pin(1);
  assert.deepEqual(c.next(keyframes(1, new Set([1])), 5000, false, 0), { rendition: 1, keyframeRequest: 1, probeKbps: null });
  c.pin('auto');
  assert.deepEqual(c.next([false, false], 5000, false, 33), { rendition: 1, keyframeRequest: 0, probeKbps: null });
  // Back to the full size; no probe: the policy has read no base rate in start-up.
  assert.deepEqual(c.next([true, false], 5000, false, 66), { rendition: 0, keyframeRequest: null, probeKbps: null });
});

test('pinning a rendition the stream does not have is refused, naming the ones it has', () => {
  const c = choice();
  for (const bad of [2, -1, 0.5]) assert.throws(() => c.pin(bad), /no rendition .*: the stream has 2 \(0 to 1\)/);
  assert.equal(c.state(0).pinned, null);
});
