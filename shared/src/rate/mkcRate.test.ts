import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControlLoop } from '../control/controlLoop';
import type { FeedbackEvent } from '../pels/feedback';
import { MKC_PAPER_GAINS } from '../pels/mkc';
import { MkcRateController, mkcStationaryLoss } from './mkcRate';

const PARAMS = { ...MKC_PAPER_GAINS, initialKbps: 128, minKbps: 128, maxKbps: 3000 };

test('the adapter steps exactly as ControlLoop does today, r(k - D) and stale events included', () => {
  const adapter = new MkcRateController(PARAMS);
  const loop = new ControlLoop({ mkc: PARAMS });
  const events: FeedbackEvent[] = [];
  for (let k = 1; k <= 60; k++) events.push({ kind: 'router', epoch: k, lossFraction: k < 20 ? -0.8 : 0.05 * Math.sin(k), atMs: 30 * k, origin: 'r1', sentAtMs: 30 * k - 45 });
  events.push({ kind: 'router', epoch: 7, lossFraction: 0.9, atMs: 1900, origin: 'r1' });
  events.push({ kind: 'rtcp', epoch: 1, lossFraction: 0.1, atMs: 1950, origin: 'ssrc' });
  for (const ev of events) {
    adapter.onFeedback(ev);
    loop.onFeedback(ev);
    assert.equal(adapter.rateKbps, loop.rateKbps, `epoch ${ev.epoch}`);
  }
  adapter.setBounds(500, 600);
  loop.setRateBounds(500, 600, 2000);
  assert.equal(adapter.rateKbps, loop.rateKbps);
  assert.deepEqual(adapter.feedbackCounts, { used: 61, ignored: 1 });
  adapter.onFeedback({ kind: 'nack', lostSeqs: [1], sendTimesMs: [1], atMs: 2 });
  assert.equal(adapter.feedbackCounts.ignored, 2);
});

test("MKC's stationary loss with router feedback: n alpha / (beta C + n alpha)", () => {
  const cases: Array<[number, number, number]> = [
    [1, 2000, 0.0196],
    [4, 2000, 0.0741],
    [8, 2000, 0.1379],
    [50, 2000, 0.5],
    [2, 1544, 0.0493],
    [10, 1544, 0.206],
    [50, 1544, 0.564],
  ];
  for (const [n, c, p] of cases) assert.ok(Math.abs(mkcStationaryLoss(n, c, MKC_PAPER_GAINS) - p) < 0.0005, `n=${n} C=${c}`);
});
