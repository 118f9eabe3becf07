import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONGESTION_DEFAULTS } from './congestionEstimator';
import { OUTAGE_MS, ReceiverReportTracker, type StreamStats } from './receiverReports';

/** These tests are about the reports, not the first seconds' tolerance of loss (congestionEstimator.test.ts has it). */
const tracker = () => new ReceiverReportTracker('v1', { ...CONGESTION_DEFAULTS, unknownWireMs: 0 });

const s = (packetCount: number, packetsLost: number, jitter: number, fractionLost = 0): StreamStats => ({ packetCount, packetsLost, fractionLost, jitter, roundTripTime: 12.5 });

test('steps once both enhancement streams reported, with their pooled loss', () => {
  const t = tracker();
  assert.equal(t.update({ green: s(100, 0, 1), yellow: s(100, 0, 1), red: s(200, 100, 1, 128) }, 0)?.lossFraction, 100 / 300);
  // Same counters again: no new report, no step.
  assert.equal(t.update({ green: s(110, 0, 1), yellow: s(110, 0, 1), red: s(220, 100, 1, 128) }, 250), null);
  // Yellow reports first: wait for red.
  assert.equal(t.update({ yellow: s(200, 10, 2, 25), red: s(400, 100, 1, 128) }, 1000), null);
  const ev = t.update({ yellow: s(200, 10, 2, 25), red: s(400, 250, 2, 190) }, 1100);
  assert.deepEqual(ev, { kind: 'rtcp', epoch: 2, lossFraction: (10 + 150) / (100 + 200), atMs: 1100, origin: 'v1', rttMs: 12.5 });
});

test('the step carries the longest round trip of the streams that reported in it', () => {
  const t = tracker();
  const rtt = (x: StreamStats, roundTripTime: number): StreamStats => ({ ...x, roundTripTime });
  const ev = t.update({ green: rtt(s(100, 0, 1), 5), yellow: rtt(s(100, 0, 1), 900), red: rtt(s(100, 0, 1), 40) }, 0);
  assert.equal(ev?.rttMs, 900, 'yellow\'s queue');
  const next = t.update({ yellow: rtt(s(200, 0, 2), 30), red: rtt(s(200, 0, 2), 60) }, 1000);
  assert.equal(next?.rttMs, 60, 'green did not report in this step: its old round trip is not counted');
});

test('a stream silent past the wait counts its packets lost (a starved queue sends no report)', () => {
  const t = tracker();
  t.update({ yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0);
  assert.equal(t.update({ yellow: s(200, 20, 2), red: s(200, 0, 1) }, 1000), null);
  const ev = t.update({ yellow: s(200, 20, 2), red: s(200, 0, 1) }, 3600);
  // yellow 20 of 100 lost, red's 100 unreported packets lost
  assert.equal(ev?.lossFraction, 120 / 200);
  // Red's next real report counts those 100 as lost too: they are not counted again. (Within OUTAGE_MS of yellow's
  // last report: the way back is up.)
  assert.equal(t.update({ yellow: s(300, 20, 3), red: s(300, 150, 2) }, 3900)?.lossFraction, 50 / 200);
  assert.equal(t.update({ yellow: s(300, 20, 3), red: s(300, 150, 2) }, 6500), null);
});

test('awaits reports from the first report until the step, and only then', () => {
  const t = tracker();
  assert.equal(t.awaitingReports, false);
  t.update({ green: s(100, 0, 1), yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0);
  assert.equal(t.awaitingReports, false, 'all reported at once: stepped');
  // Packets went out, no report yet: nothing awaited.
  t.update({ green: s(150, 0, 1), yellow: s(150, 0, 1), red: s(150, 0, 1) }, 250);
  assert.equal(t.awaitingReports, false);
  t.update({ yellow: s(200, 10, 2), red: s(200, 0, 1) }, 1000);
  assert.equal(t.awaitingReports, true, 'yellow reported, red owes');
  assert.ok(t.update({ yellow: s(200, 10, 2), red: s(200, 5, 2) }, 1250));
  assert.equal(t.awaitingReports, false);
});

test('at the base floor (no enhancement packets) green reports drive the steps', () => {
  const t = tracker();
  const first = t.update({ green: s(100, 5, 1) }, 0);
  assert.equal(first?.lossFraction, 0.05);
  const second = t.update({ green: s(200, 5, 2) }, 1000);
  assert.equal(second?.lossFraction, 0);
  assert.equal(second?.epoch, 2);
});

test('per-color state: cumulative loss, last report loss, rtt', () => {
  const t = tracker();
  t.update({ green: s(1000, 0, 1), yellow: s(500, 50, 1, 26), red: s(1000, 750, 1, 192) }, 0);
  assert.deepEqual(t.colorState('red'), { packetsSent: 1000, packetsLost: 750, lossFraction: 0.75, recentLoss: 0.75 });
  assert.equal(t.colorState('yellow').recentLoss, 26 / 256);
  assert.deepEqual(t.colorState('green'), { packetsSent: 1000, packetsLost: 0, lossFraction: 0, recentLoss: 0 });
  assert.equal(t.rtt, 12.5);
});

test('nothing reported: no state invented', () => {
  const t = tracker();
  assert.deepEqual(t.colorState('yellow'), { packetsSent: 0, packetsLost: 0, lossFraction: 0, recentLoss: null });
  assert.equal(t.rtt, null);
});

test('green loss of the same interval goes along with the step, when green reported', () => {
  const t = tracker();
  // Green losing 10% where the enhancement lost nothing is not the wire's (that would hit every color): base congestion.
  const ev = t.update({ green: s(100, 10, 1), yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0);
  assert.equal(ev?.lossFraction, 0.1);
  assert.equal(ev?.baseLossFraction, 0.1);
  const next = t.update({ green: s(200, 10, 2), yellow: s(200, 0, 2), red: s(200, 10, 2) }, 1000);
  assert.deepEqual([next?.lossFraction, next?.baseLossFraction], [10 / 200, 0]);
  // Green silent this time: no base loss measured, none claimed.
  const silent = t.update({ yellow: s(300, 0, 3), red: s(300, 10, 3) }, 2000);
  assert.equal(silent?.lossFraction, 0);
  assert.equal(silent && 'baseLossFraction' in silent, false);
});

test('a loss-free stream whose reports repeat their counters (jitter holding still) is not counted as lost', () => {
  const t = tracker();
  const at = (x: StreamStats, rtt: number): StreamStats => ({ ...x, roundTripTime: rtt });
  t.update({ yellow: at(s(100, 0, 1), 10), red: at(s(100, 0, 1), 10) }, 0);
  for (let i = 1; i <= 5; i++) {
    const ev = t.update({ yellow: at(s(100 + 100 * i, 0, 1), 10 + i), red: at(s(100 + 100 * i, 0, 1), 10 + i) }, 1000 * i);
    assert.equal(ev?.lossFraction, 0, `report ${i}`);
  }
});

test("green's loss is p's floor: enhancement losses not reported yet do not let the rate climb while the base layer is dropped", () => {
  const t = tracker();
  const ev = t.update({ green: s(100, 80, 1, 204), yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0);
  // Beyond the worst wire loss served (20%), before any estimate: 1 - 0.2 / 0.8, less two standard errors.
  assert.ok(ev!.lossFraction > 0.6 && ev!.lossFraction === ev!.baseLossFraction, JSON.stringify(ev));
  assert.equal(t.update({ green: s(200, 80, 2), yellow: s(200, 10, 2, 25), red: s(200, 20, 2, 51) }, 1000)?.lossFraction, 30 / 200);
});

test('reports that stopped on every stream and came back (a link down) start the counts afresh: its losses are no congestion step', () => {
  const t = tracker();
  assert.equal(t.update({ green: s(100, 0, 1), yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0)?.lossFraction, 0);
  // The link is down for 3 s: 300 packets a stream go out, no report comes; then each stream reports them lost.
  const back = OUTAGE_MS + 1000;
  assert.equal(t.update({ green: s(420, 300, 9, 230), yellow: s(400, 0, 1), red: s(400, 0, 1) }, back), null, "green's report after the gap: no step");
  assert.equal(t.update({ yellow: s(420, 300, 9, 230), red: s(420, 300, 9, 230) }, back + 250), null, 'nor on the others\' first');
  assert.equal(t.awaitingReports, false);
  // The next reports are read as usual: 10 of 100 lost since.
  assert.equal(t.update({ green: s(520, 300, 2), yellow: s(520, 310, 2), red: s(520, 310, 2) }, back + 1250)?.lossFraction, 20 / 200);
});

test('a queue full on the way to the player leaves its reports coming: their losses are stepped on', () => {
  const t = tracker();
  t.update({ green: s(100, 0, 1), yellow: s(100, 0, 1), red: s(100, 0, 1) }, 0);
  let ev = null;
  for (let i = 1; i <= 4; i++) ev = t.update({ green: s(100 + 100 * i, 0, 1), yellow: s(100 + 100 * i, 80 * i, 2, 200), red: s(100 + 100 * i, 80 * i, 2, 200) }, i * 1000);
  assert.equal(ev?.lossFraction, 0.8);
});
