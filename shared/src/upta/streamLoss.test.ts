import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamLossWindow } from './streamLoss';

const counters = (g: [number, number], y: [number, number], r: [number, number]) => ({
  green: { packetsSent: g[0], packetsLost: g[1] },
  yellow: { packetsSent: y[0], packetsLost: y[1] },
  red: { packetsSent: r[0], packetsLost: r[1] },
});

test('loss over the window: green alone, yellow and red pooled; too few packets is not measured', () => {
  const w = new StreamLossWindow(2000, 10);
  assert.equal(w.frameLoss(), null);
  w.add(counters([0, 0], [0, 0], [0, 0]), 0);
  w.add(counters([100, 10], [50, 5], [50, 25]), 1000);
  assert.deepEqual(w.loss(), { base: 0.1, enhancement: 0.3 });
  // The window slides: only the last 2 s count.
  w.add(counters([200, 10], [100, 5], [100, 25]), 2000);
  w.add(counters([300, 10], [105, 5], [100, 25]), 3000);
  assert.deepEqual(w.loss(), { base: 0, enhancement: 0 });
  w.add(counters([320, 10], [105, 5], [100, 25]), 5000);
  assert.deepEqual(w.loss(), { base: 0, enhancement: null });
  assert.deepEqual(w.frameLoss(), { base: 0, enhancement: 0 });
  w.reset();
  assert.deepEqual(w.loss(), { base: null, enhancement: null });
});
