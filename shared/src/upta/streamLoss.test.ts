import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamLossWindow } from './streamLoss';

/** A poll: [packets sent, packets lost as last reported, report id (a new one changes the report's fields)] per color. */
const poll = (g: [number, number, number], y?: [number, number, number], r?: [number, number, number]) => {
  const s = ([packetCount, packetsLost, report]: [number, number, number]) => ({ packetCount, packetsLost, fractionLost: 0, jitter: report });
  return { green: s(g), ...(y ? { yellow: s(y) } : {}), ...(r ? { red: s(r) } : {}) };
};

test('loss between receiver reports: green alone, yellow and red pooled; too few packets is not measured', () => {
  const w = new StreamLossWindow(3000, 10);
  assert.equal(w.frameLoss(), null);
  w.add(poll([0, 0, 1], [0, 0, 1], [0, 0, 1]), 0);
  // Packets sent since the last report are not counted until a report covers them.
  w.add(poll([60, 0, 1], [30, 0, 1], [30, 0, 1]), 500);
  assert.deepEqual(w.loss(), { base: null, enhancement: null });
  w.add(poll([100, 10, 2], [50, 5, 2], [50, 25, 2]), 1000);
  assert.deepEqual(w.loss(), { base: 0.1, enhancement: 0.3 });
  // The window slides: only the last 3 s count.
  w.add(poll([200, 10, 3], [100, 5, 3], [100, 25, 3]), 2000);
  w.add(poll([300, 10, 4], [150, 5, 4], [150, 25, 4]), 4000);
  assert.deepEqual(w.loss(), { base: 0, enhancement: 0 });
  w.reset();
  assert.deepEqual(w.loss(), { base: null, enhancement: null });
});

test('a stream that carried packets and stays silent counts them as lost', () => {
  const w = new StreamLossWindow(4000, 10);
  w.add(poll([0, 0, 1]), 0);
  w.add(poll([100, 0, 2]), 1000);
  w.add(poll([150, 0, 2]), 2000); // no report for 1 s: not yet
  assert.equal(w.loss().base, 0);
  w.add(poll([200, 0, 2]), 3000); // 2 s silent: the 100 packets since the last report are lost
  assert.equal(w.loss().base, 0.5);
  // The report that comes at last (the 100 were lost) counts nothing twice.
  w.add(poll([210, 100, 3]), 3250);
  assert.equal(w.loss().base, 100 / 210);
});
