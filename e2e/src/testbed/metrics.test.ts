import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CongestionState, LossDiagnosis, ViewerState } from '@pels/shared/protocol/api';
import { congestionOf, congestionSummary, intervalLoss, jainIndex, mean, median, psnrSummary, quantile, round, serverCounters, timeToFullRateMs } from './metrics';

test('Jain index: equal shares 1, one hog 1/n', () => {
  assert.equal(jainIndex([5, 5, 5, 5]), 1);
  assert.equal(jainIndex([10, 0, 0, 0]), 0.25);
  assert.ok(Math.abs(jainIndex([1, 2])! - 0.9) < 1e-12);
  assert.equal(jainIndex([]), null);
});

test('interval loss from cumulative counters', () => {
  assert.equal(intervalLoss({ packetsSent: 100, packetsLost: 10 }, { packetsSent: 300, packetsLost: 60 }), 0.25);
  assert.equal(intervalLoss({ packetsSent: 100, packetsLost: 10 }, { packetsSent: 100, packetsLost: 10 }), null);
  assert.equal(mean([]), null);
});

test('PSNR summary over the displayed frames after a time: mean and 5th percentile, unscored frames left out', () => {
  const xs = Array.from({ length: 100 }, (_, i) => ({ t: i, psnr: i < 50 ? null : 20 + (i - 50) / 10 }));
  const s = psnrSummary(xs, 10);
  assert.equal(s.mean, 22.45);
  assert.equal(s.p5, 20.2);
  assert.equal(s.scoredShare, round(50 / 90, 3));
  assert.deepEqual(psnrSummary(xs, 1000), { mean: null, p5: null, scoredShare: null });
  assert.deepEqual(psnrSummary(xs.slice(0, 50), 0), { mean: null, p5: null, scoredShare: 0 });
});

test('time to full rate: the first point at 90% of the stream, after the start; null when never', () => {
  const points = [
    { atMs: 2000, sentKbps: 250 },
    { atMs: 3000, sentKbps: 899 },
    { atMs: 4000, sentKbps: 950 },
    { atMs: 5000, sentKbps: 1000 },
  ];
  assert.equal(timeToFullRateMs(points, 500, 1000), 3500);
  assert.equal(timeToFullRateMs(points, 500, 1000, 0.85), 2500);
  assert.equal(timeToFullRateMs(points.slice(0, 2), 500, 1000), null);
  assert.equal(timeToFullRateMs(points, 0, 0), null);
  assert.equal(timeToFullRateMs([], 0, 1000), null);
});

test('median', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(median([]), null);
});

test('quantile: nearest rank at or below', () => {
  const xs = Array.from({ length: 101 }, (_, i) => 100 - i);
  assert.equal(quantile(xs, 0.05), 5);
  assert.equal(quantile(xs, 0.5), 50);
  assert.equal(quantile(xs, 1), 100);
  assert.equal(quantile([], 0.5), null);
});

test('congestion summary: means of the known estimates, the share of each diagnosis, null without readings', () => {
  // Only the fields the summary reads: the estimator's state has more.
  const state = (diagnosis: LossDiagnosis, congestion: number | null, wireLoss: number | null) => ({ diagnosis, congestion, wireLoss }) as CongestionState;
  const s = congestionSummary([state('clear', null, null), null, state('wire-loss', 0, 0.1), state('wire-loss', 0.02, 0.12), state('congestion', 0.1, 0.05)]);
  assert.deepEqual(s, { congestion: 0.04, wireLoss: 0.09, diagnosis: { clear: 0.25, 'wire-loss': 0.5, congestion: 0.25 }, samples: 4 });
  assert.equal(congestionSummary([null, null]), null);
  assert.equal(congestionSummary([]), null);
});

test('a viewer state from a server without the congestion estimator reads as no reading', () => {
  assert.equal(congestionOf({ id: 'v1' } as unknown as ViewerState), null);
});

test("the server's counters from /metrics: channel drops per color, keyframes forced over every stream", () => {
  const text = [
    '# HELP pels_channel_packets_dropped_total x',
    'pels_channel_packets_dropped_total{color="yellow"} 12',
    'pels_channel_packets_dropped_total{color="red"} 30',
    'pels_keyframes_forced_total{stream="a"} 3',
    'pels_keyframes_forced_total{stream="b"} 1',
  ].join('\n');
  assert.deepEqual(serverCounters(text), { channelDropped: { green: 0, yellow: 12, red: 30 }, keyframesForced: 4 });
});
