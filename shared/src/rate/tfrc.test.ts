import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TfrcController, averageLossInterval, tfrcEquationKbps, tfrcLossRateFor, tfrcThroughputBytesPerS } from './tfrc';
import { TfrcReceiver } from './tfrcReceiver';

test('the throughput equation gives the RFC 3448 values (bytes/s, rounded)', () => {
  const cases: Array<[number, number, number, number]> = [
    // s, R (s), p, X (B/s)
    [1000, 0.1, 0.01, 112_332],
    [1000, 0.1, 0.001, 383_844],
    [1000, 0.05, 0.1, 35_402],
    [1000, 0.2, 0.05, 18_429],
  ];
  for (const [s, r, p, x] of cases) assert.equal(Math.round(tfrcThroughputBytesPerS(s, r, p)), x, `s=${s} R=${r} p=${p}`);
  assert.equal(Math.round(tfrcThroughputBytesPerS(1000, 0.1, 0.3) * 10) / 10, 1948.5);
  assert.ok(Math.abs(tfrcEquationKbps(1000, 100, 0.01) - 898.66) < 0.01);
});

test('the inverse finds the loss event rate that gives a rate', () => {
  for (const p of [0.0005, 0.01, 0.2]) {
    const x = tfrcEquationKbps(1000, 80, p);
    assert.ok(Math.abs(tfrcLossRateFor(x, 1000, 80) / p - 1) < 1e-9, `p=${p}`);
  }
});

test('average loss interval: weights 1,1,1,1,0.8,0.6,0.4,0.2, the larger of the means with and without the open interval', () => {
  // I_tot0 = 597, I_tot1 = 591, W_tot = 6: I_mean = 99.5, p = 0.010050.
  const mean = averageLossInterval([100, 80, 120, 90, 110, 100, 95, 105, 60])!;
  assert.ok(Math.abs(mean - 99.5) < 1e-9);
  assert.ok(Math.abs(1 / mean - 0.01005025) < 1e-8);
  // A short open interval cannot raise p: the closed intervals alone win.
  assert.equal(averageLossInterval([1, 100, 100]), 100);
  // Fewer than 8 closed intervals: their own weights.
  assert.equal(averageLossInterval([300, 100]), 200);
  assert.equal(averageLossInterval([50]), undefined);
});

const setup = { initialKbps: 100, minKbps: 8, maxKbps: 10_000, packetBytes: 1000, oscillationAvoidance: false };
const report = (atMs: number, xRecvKbps: number, lossEventRate: number, rttMs = 100) => ({ kind: 'receiver-report' as const, xRecvKbps, lossEventRate, echoTsMs: atMs - rttMs, tDelayMs: 0, atMs });

test('slow start doubles at most once per round trip, capped at twice the receive rate', () => {
  const c = new TfrcController(setup);
  c.onFeedback(report(1000, 100, 0));
  assert.equal(c.rateKbps, 200);
  c.onFeedback(report(1050, 200, 0));
  assert.equal(c.rateKbps, 200, 'within a round trip of the last doubling');
  c.onFeedback(report(1100, 150, 0));
  assert.equal(c.rateKbps, 300, 'twice the receive rate');
  assert.equal(c.rttMs, 100);
});

test('with loss the rate is the equation, at most twice the receive rate', () => {
  const c = new TfrcController(setup);
  c.onFeedback(report(1000, 5000, 0.01));
  assert.ok(Math.abs(c.rateKbps - tfrcEquationKbps(1000, 100, 0.01)) < 1e-9);
  c.onFeedback(report(1100, 200, 0.01));
  assert.equal(c.rateKbps, 400);
  assert.equal(c.lossEventRate, 0.01);
});

test('without reports the no-feedback timer halves the rate', () => {
  const c = new TfrcController(setup);
  assert.equal(c.onTimer(0), 2000);
  c.onTimer(2000);
  assert.equal(c.rateKbps, 50, 'no feedback ever: X / 2');
  c.onFeedback(report(3000, 1000, 0.001));
  const x = c.rateKbps;
  const due = c.onTimer(3001);
  assert.equal(due, 3000 + Math.max(400, (2 * 8000) / x));
  c.onTimer(due);
  // X_calc (3 mb/s) > 2 X_recv: X_recv halves, and X with it.
  assert.equal(c.rateKbps, 1000);
});

test('oscillation avoidance slows the sender while the round trip is above its sqrt-mean', () => {
  const c = new TfrcController({ ...setup, oscillationAvoidance: true });
  c.onFeedback(report(1000, 5000, 0.01, 100));
  const x = c.rateKbps;
  c.onFeedback(report(1100, 5000, 0.01, 400));
  const equation = tfrcEquationKbps(1000, 130, 0.01);
  const sqrtMean = 0.9 * 10 + 0.1 * 20;
  assert.ok(Math.abs(c.rateKbps - (equation * sqrtMean) / 20) < 1e-9, `${c.rateKbps}`);
  assert.ok(c.rateKbps < x);
});

test('reports of other kinds and impossible reports are ignored and counted', () => {
  const c = new TfrcController(setup);
  c.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0.5, atMs: 10 });
  c.onFeedback(report(1000, 100, 2));
  c.onFeedback({ ...report(1000, 100, 0), echoTsMs: 2000 });
  assert.equal(c.rateKbps, 100);
  assert.deepEqual(c.feedbackCounts, { used: 0, ignored: 3 });
});

test('receiver: a loss counts once 3 later packets arrived, losses within a round trip are one event', () => {
  const r = new TfrcReceiver({ packetBytes: 1000 });
  let t = 0;
  const deliver = (seq: number): boolean => {
    t = seq * 10;
    return r.onPacket(seq, 1000, t, t + 50, 100);
  };
  for (let s = 0; s < 100; s++) assert.equal(deliver(s), false);
  // 100 and 102 lost (sent 20 ms apart): 100 is lost once 101, 103 and 104 arrived; 102 joins its event.
  assert.equal(deliver(101), false);
  assert.equal(deliver(103), false);
  assert.equal(deliver(104), true);
  assert.equal(deliver(105), false);
  const first = r.lossEventRate;
  assert.ok(first > 0);
  for (let s = 106; s < 200; s++) assert.equal(deliver(s), false);
  // 200: a second event, 100 packets after the first.
  for (let s = 201; s <= 203; s++) deliver(s);
  assert.ok(r.lossEventRate > 0);
  const rep = r.report(2100)!;
  assert.equal(rep.kind, 'receiver-report');
  assert.equal(rep.echoTsMs, 2030);
  assert.equal(rep.tDelayMs, 2100 - 2080);
  for (let s = 204; s < 2000; s++) deliver(s);
  assert.ok(r.lossEventRate < first, 'a long loss-free run lowers p through the open interval');
});

test('receiver: the first loss interval is the one whose equation rate is the receive rate (RFC 3448 6.3.1)', () => {
  const r = new TfrcReceiver({ packetBytes: 1000 });
  // 1000-byte packets every 10 ms: 800 kb/s; the sender's RTT 100 ms.
  for (let s = 0; s < 50; s++) r.onPacket(s, 1000, s * 10, s * 10 + 20, 100);
  for (let s = 51; s <= 54; s++) r.onPacket(s, 1000, s * 10, s * 10 + 20, 100);
  // History: the synthetic interval, then the open one (4 packets); the larger mean is the synthetic one.
  assert.ok(Math.abs(tfrcEquationKbps(1000, 100, r.lossEventRate) / 800 - 1) < 0.15, `${r.lossEventRate}`);
});
