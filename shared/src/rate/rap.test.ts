import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RAP_DEFAULTS, RapController } from './rap';

/** 1000-byte packets at IPG 10 ms (800 kb/s), SRTT 100 ms, no fine-grain scaling. */
const rap = (overrides = {}) =>
  new RapController({ ...RAP_DEFAULTS, fineGrain: false, packetBytes: 1000, initialKbps: 800, minKbps: 8, maxKbps: 10_000, initialRttMs: 100, ...overrides });

/** Sends packets from..to-1, one per 10 ms from startMs. */
function send(c: RapController, from: number, to: number, startMs: number): void {
  for (let s = from; s < to; s++) c.onSent(s, 1000, startMs + (s - from) * 10);
}

test('once per SRTT the IPG becomes IPG SRTT / (IPG + SRTT): +1 packet per RTT', () => {
  const c = rap();
  assert.equal(c.onTimer(0), 100);
  send(c, 0, 10, 0);
  assert.equal(c.onTimer(100), 200);
  assert.ok(Math.abs(c.rateKbps - 880) < 1e-9, `${c.rateKbps}`);
});

test('a loss found from the ACKs halves the rate once per cluster', () => {
  const c = rap();
  c.onTimer(0);
  send(c, 0, 10, 0);
  const ack = (seq: number, lastMiss: number, prevRecv: number, atMs: number) => c.onFeedback({ kind: 'ack', seq, sendTimeMs: seq * 10, atMs, lastRecv: seq, lastMiss, prevRecv });
  ack(0, -1, -1, 100);
  ack(1, -1, -1, 110);
  // 2 and 3 lost: 2 is declared lost at the ACK of 5 (3 past it).
  ack(4, 3, 1, 140);
  assert.equal(c.rateKbps, 800);
  ack(5, 3, 1, 150);
  assert.equal(c.rateKbps, 400);
  // 3 is 3 behind at the ACK of 6, but was sent before the back-off: the same cluster.
  ack(6, 3, 1, 160);
  assert.equal(c.rateKbps, 400);
  // The increase timer restarts at the back-off.
  assert.equal(c.onTimer(160), 250);
});

test('packets unacknowledged past the timeout are lost, and NACKs count as losses', () => {
  const c = rap();
  c.onTimer(0);
  c.onSent(0, 1000, 0);
  // timeout = 1.2 SRTT + 4 VAR = 120 + 200 ms.
  c.onSent(1, 1000, 319);
  assert.equal(c.rateKbps, 800);
  c.onSent(2, 1000, 320);
  assert.equal(c.rateKbps, 400);
  c.onSent(3, 1000, 330);
  c.onFeedback({ kind: 'nack', lostSeqs: [3], sendTimesMs: [330], atMs: 400 });
  assert.equal(c.rateKbps, 200);
});

test('a flow that does not use its rate does not increase it', () => {
  const c = rap();
  c.onTimer(0);
  send(c, 0, 4, 0);
  c.onTimer(100);
  assert.equal(c.rateKbps, 800);
});

test('fine grain paces by the short- over the long-term RTT; quantized rates step by the quantum', () => {
  const c = rap({ fineGrain: true });
  c.onFeedback({ kind: 'ack', seq: 0, sendTimeMs: 0, atMs: 100, lastRecv: 0, lastMiss: -1, prevRecv: -1 });
  assert.equal(c.rateKbps, 800);
  // A queue builds: RTT 200 ms. Short-term 0.1 x 100 + 0.9 x 200 = 190, long-term 0.99 x 100 + 0.01 x 200 = 101.
  c.onFeedback({ kind: 'ack', seq: 1, sendTimeMs: 10, atMs: 210, lastRecv: 1, lastMiss: -1, prevRecv: -1 });
  assert.ok(Math.abs(c.rateKbps - (800 * 101) / 190) < 1e-9, `${c.rateKbps}`);
  assert.equal(rap({ quantumKbps: 300 }).rateKbps, 600);
});
