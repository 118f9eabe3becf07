import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import type { LayeredFrame } from '../layering/layeredFrame';
import { RenditionSwitch } from './renditionSwitch';

const PARAMS: RenditionPolicyParams = { margin: 0.5, hysteresis: 0.5, upHoldMs: 1000, minDwellMs: 2000, maxDwellMs: 8000, failWindowMs: 10_000, baseLossLimit: 0.05, switchGraceMs: 0, probeAfterReports: 3, probeLossLimit: 0.1, probe: true, dwellJitter: 0, probeHoldMs: 4000, baseWindowMs: 0 };

function frame(index: number, rendition: number, keyframe: boolean): LayeredFrame {
  return { index, ticks: index * 3000, keyframe, temporalId: keyframe ? 0 : ([0, 2, 1, 2] as const)[index % 4]!, layerSync: false, nonReference: false, bytes: 100 + rendition, data: new Uint8Array([rendition]) };
}

/** Rendition 1 has a keyframe at `keyAt` (and index 0); rendition 0 only at index 0. */
function set(index: number, keyAt: ReadonlySet<number>): LayeredFrame[] {
  return [frame(index, 0, index === 0), frame(index, 1, index === 0 || keyAt.has(index))];
}

test('moves down at the target rendition\'s keyframe, asking for it once; sends the current one until then', () => {
  const asked: number[] = [];
  const sw = new RenditionSwitch(2, PARAMS, (r) => void asked.push(r), () => {}, 0);
  sw.setRates([240, 60], [1000, 250]);
  const keyAt = new Set([5]);
  const sent: number[] = [];
  for (let i = 0; i < 8; i++) sent.push(sw.pick(set(i, keyAt), i < 2 ? 1000 : 200, true, i * 33)!.data[0]!);
  assert.deepEqual(sent, [0, 0, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual(asked, [1]);
  const s = sw.state(8 * 33);
  assert.equal(s.current, 1);
  assert.equal(s.switches, 1);
  assert.equal(s.pending, null);
  assert.deepEqual(s.timeMs, [165, 99]);
});

test('no moves during start-up or with one rendition; a target given up before its keyframe is forgotten', () => {
  const asked: number[] = [];
  const sw = new RenditionSwitch(2, PARAMS, (r) => void asked.push(r), () => {}, 0);
  sw.setRates([240, 60], [1000, 250]);
  assert.equal(sw.pick(set(1, new Set([1])), 100, false, 0)!.data[0], 0);
  assert.equal(asked.length, 0);
  sw.pick(set(2, new Set()), 100, true, 33);
  assert.equal(sw.keyframeRendition, 1);
  sw.pick(set(3, new Set()), 1000, true, 66);
  assert.equal(sw.keyframeRendition, 0);
  assert.equal(sw.pick(set(4, new Set([4])), 1000, true, 99)!.data[0], 0);
  const one = new RenditionSwitch(1, PARAMS, (r) => void asked.push(r), () => {}, 0);
  assert.equal(one.pick([frame(1, 0, false)], 1, true, 0)!.data[0], 0);
  assert.deepEqual(asked, [1]);
});

test('loss-free reports on the lower rendition move it up at the keyframe, and the rate is raised to what the higher one needs', () => {
  const asked: number[] = [];
  const probes: number[] = [];
  const sw = new RenditionSwitch(2, PARAMS, (r) => void asked.push(r), (kbps) => void probes.push(kbps), 0);
  sw.setRates([240, 60], [1000, 250]);
  const keyAt = new Set([1, 100]);
  assert.equal(sw.pick(set(1, keyAt), 200, true, 0)!.data[0], 1);
  // The rate stays at 300, over all the low rendition's 250 (below 240 * 1.5 = 360): three loss-free reports, then the dwell.
  for (let i = 0; i < 3; i++) sw.onFeedback(0, 0);
  assert.equal(sw.pick(set(2, keyAt), 300, true, 1000)!.data[0], 1);
  assert.equal(sw.pick(set(99, keyAt), 300, true, 2000)!.data[0], 1);
  assert.deepEqual(probes, []);
  assert.equal(sw.pick([frame(100, 0, true), frame(100, 1, true)], 300, true, 2100)!.data[0], 0);
  assert.deepEqual(asked, [1, 0]);
  assert.deepEqual(probes, [240 * 2]);
});

test('a pinned rendition is held whatever the rate, from its keyframe on, start-up included; auto gives the choice back', () => {
  const asked: number[] = [];
  const sw = new RenditionSwitch(2, PARAMS, (r) => void asked.push(r), () => {}, 0);
  sw.setRates([240, 60], [1000, 250]);
  sw.pin(1);
  assert.equal(sw.state(0).pinned, 1);
  // A rate that keeps the full size under the policy, and not yet settled: the pin moves it all the same, at 1's keyframe.
  assert.equal(sw.pick(set(1, new Set([3])), 5000, false, 0)!.data[0], 0);
  assert.equal(sw.pick(set(2, new Set([3])), 5000, true, 33)!.data[0], 0);
  assert.equal(sw.pick(set(3, new Set([3])), 5000, true, 66)!.data[0], 1);
  for (let i = 4; i < 100; i++) assert.equal(sw.pick(set(i, new Set()), 5000, true, i * 33)!.data[0], 1);
  assert.deepEqual(asked, [1]);
  // Pinned to the full size on a rate that would move it down: it stays there.
  sw.pin(0);
  assert.equal(sw.pick([frame(100, 0, true), frame(100, 1, false)], 50, true, 3300)!.data[0], 0);
  for (let i = 101; i < 200; i++) assert.equal(sw.pick(set(i, new Set([150])), 50, true, i * 33)!.data[0], 0);
  assert.deepEqual(asked, [1, 0]);
  // Auto: the rate chooses again, and 50 kb/s does not carry the full size's base layer.
  sw.pin('auto');
  assert.equal(sw.state(6600).pinned, null);
  assert.equal(sw.pick(set(200, new Set([201])), 50, true, 6600)!.data[0], 0);
  assert.equal(sw.pick(set(201, new Set([201])), 50, true, 6633)!.data[0], 1);
  assert.deepEqual(asked, [1, 0, 1]);
});

test('a pin released during start-up goes back to the full size, where start-up keeps every viewer', () => {
  const asked: number[] = [];
  const sw = new RenditionSwitch(2, PARAMS, (r) => void asked.push(r), () => {}, 0);
  sw.setRates([240, 60], [1000, 250]);
  sw.pin(1);
  assert.equal(sw.pick(set(1, new Set([1])), 5000, false, 0)!.data[0], 1);
  sw.pin('auto');
  assert.equal(sw.pick([frame(2, 0, false), frame(2, 1, false)], 5000, false, 33)!.data[0], 1);
  assert.equal(sw.pick([frame(3, 0, true), frame(3, 1, false)], 5000, false, 66)!.data[0], 0);
  assert.deepEqual(asked, [1, 0]);
});

test('pinning a rendition the stream does not have is refused, naming the ones it has', () => {
  const sw = new RenditionSwitch(2, PARAMS, () => {}, () => {}, 0);
  for (const bad of [2, -1, 0.5]) assert.throws(() => sw.pin(bad), /no rendition .*: the stream has 2 \(0 to 1\)/);
  assert.equal(sw.state(0).pinned, null);
});
