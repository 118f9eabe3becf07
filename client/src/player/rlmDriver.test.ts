import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import type { Color } from '@pels/shared/pels/color';
import { RlmDriver } from './rlmDriver';
import { layerCounters, type LayerCounters } from './layerCounters';

test('the driver asks for more colors on clean counters and drops the top one when a join fails', () => {
  const asked: Color[][] = [];
  const d = new RlmDriver(0, mulberry32(1), (c) => asked.push(c));
  const c: LayerCounters = { green: { received: 0, lost: 0 }, yellow: { received: 0, lost: 0 }, red: { received: 0, lost: 0 } };
  let t = 0;
  for (; t < 120_000 && d.subscription < 3; t += 200) {
    for (const [i, color] of (['green', 'yellow', 'red'] as const).entries()) if (i < d.subscription) c[color] = { received: c[color].received + 10, lost: 0 };
    d.onCounters(structuredClone(c), t);
  }
  assert.deepEqual(asked.at(-1), ['green', 'yellow', 'red']);
  c.red = { received: c.red.received + 5, lost: 5 };
  d.onCounters(structuredClone(c), t + 200);
  assert.deepEqual(asked.at(-1), ['green', 'yellow']);
});

test('layer counters come from each color stream\'s inbound-rtp stats', () => {
  const report = new Map<string, unknown>([
    ['a', { type: 'inbound-rtp', ssrc: 11, packetsReceived: 100, packetsLost: 3 }],
    ['b', { type: 'inbound-rtp', ssrc: 22, packetsReceived: 50, packetsLost: -1 }],
    ['c', { type: 'candidate-pair' }],
  ]) as unknown as RTCStatsReport;
  const out = layerCounters(report, new Map<number, Color>([[11, 'green'], [22, 'yellow']]));
  assert.deepEqual(out, { green: { received: 100, lost: 3 }, yellow: { received: 50, lost: 0 }, red: { received: 0, lost: 0 } });
});
