import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../pels/syntheticStream';
import { RLM_DEFAULTS, RlmReceiver, truncatedExp } from './rlm';

const params = { ...RLM_DEFAULTS, layers: 4 };

/** Runs a receiver on a path that delivers `capacity` layers' packets losslessly and loses `lossAbove` of the packets of any layer above. */
function drive(r: RlmReceiver, untilMs: number, capacityLayers: number, lossAbove: number, random: () => number, seq = [0, 0, 0, 0, 0], pktPerSecPerLayer = 20): number[] {
  for (let t = 0; t < untilMs; t += 1000 / pktPerSecPerLayer) {
    while (r.nextWakeMs <= t) r.tick(r.nextWakeMs);
    for (let layer = 1; layer <= r.subscription; layer++) {
      const s = seq[layer]!++;
      const congested = r.subscription > capacityLayers;
      if (congested && random() < lossAbove) continue; // lost: the next packet shows the gap
      r.onPacket(layer, s, t);
    }
  }
  return seq;
}

test('the join delay is T_J/2 plus an exponential of mean T_J truncated at 4 T_J: mean 1.4254 T_J', () => {
  const random = mulberry32(3);
  let sum = 0;
  const n = 100_000;
  for (let i = 0; i < n; i++) sum += 2500 + truncatedExp(5000, random);
  assert.ok(Math.abs(sum / n / 5000 - 1.4254) < 0.02 * 1.4254, `${sum / n / 5000}`);
});

test('a receiver climbs to the level its path carries and settles there', () => {
  const random = mulberry32(1);
  const r = new RlmReceiver(params, random, 0);
  drive(r, 300_000, 3, 0.4, mulberry32(2));
  assert.equal(r.subscription, 3);
  assert.ok(r.joinTimerMs[4]! > params.initialJoinMs, 'failed experiments at layer 4 backed its timer off');
  assert.ok(r.joinTimerMs[4]! <= params.maxJoinMs);
});

test('loss below 25% never makes a receiver drop a layer it has held long enough', () => {
  const r = new RlmReceiver({ ...params, layers: 2 }, mulberry32(5), 0);
  const seq = drive(r, 60_000, 2, 0, mulberry32(6));
  assert.equal(r.subscription, 2);
  const drops = r.drops;
  // Now every fifth packet of every layer lost (20%): S -> H -> M -> S, never D.
  for (let t = 60_000; t < 200_000; t += 50) {
    while (r.nextWakeMs <= t) r.tick(r.nextWakeMs);
    for (let layer = 1; layer <= r.subscription; layer++) {
      const s = seq[layer]!++;
      if (s % 5 === 0) continue;
      r.onPacket(layer, s, t);
    }
  }
  assert.equal(r.drops, drops);
  assert.equal(r.subscription, 2);
});

test('in measurement, more than 25% lost over at least W packets drops the top layer', () => {
  const r = new RlmReceiver({ ...params, layers: 2, windowPackets: 4 }, mulberry32(9), 0);
  const seq = drive(r, 60_000, 2, 0, mulberry32(10));
  assert.equal(r.subscription, 2);
  const random = mulberry32(11);
  let t = 60_000;
  for (; t < 120_000 && r.subscription === 2; t += 50) {
    while (r.nextWakeMs <= t) r.tick(r.nextWakeMs);
    for (let layer = 1; layer <= r.subscription; layer++) {
      const s = seq[layer]!++;
      if (random() < 0.5) continue;
      r.onPacket(layer, s, t);
    }
  }
  assert.equal(r.subscription, 1, 'dropped to the base layer');
  assert.ok(t - 60_000 < 20_000, `took ${t - 60_000} ms`);
});

test('counter reports drive the same machine: a receiver climbs on clean reports and a failed experiment drops the layer', () => {
  const r = new RlmReceiver({ ...params, layers: 3 }, mulberry32(12), 0);
  let t = 0;
  for (; t < 120_000 && r.subscription < 3; t += 200) {
    while (r.nextWakeMs <= t) r.tick(r.nextWakeMs);
    for (let layer = 1; layer <= r.subscription; layer++) r.onReport(layer, 5, 0, t);
  }
  assert.equal(r.subscription, 3);
  // Loss right after the join: the experiment failed.
  r.onReport(3, 3, 2, t + 200);
  assert.equal(r.subscription, 2);
  assert.ok(r.joinTimerMs[3]! >= 2 * params.initialJoinMs);
});
