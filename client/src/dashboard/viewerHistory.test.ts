import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OperatorSnapshot, OperatorViewer } from '@pels/shared/protocol/operator';
import { ViewerHistory } from './viewerHistory';

const viewer = (id: string, rateKbps: number): OperatorViewer => {
  const c = { packetsSent: 0, packetsLost: 0, lossFraction: 0, recentLoss: 0.1 };
  return { id, rateKbps, sentKbps: rateKbps - 10, gamma: 0.2, perColor: { green: c, yellow: c, red: { ...c, recentLoss: null } } } as OperatorViewer;
};
const snapshot = (second: number, viewers: OperatorViewer[]) => ({ at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(), viewers }) as OperatorSnapshot;

test('one point per snapshot per viewer, x in seconds from the first snapshot; leavers are forgotten', () => {
  const h = new ViewerHistory();
  let notified = 0;
  h.subscribe(() => notified++);
  h.add(snapshot(10, [viewer('a', 200), viewer('b', 300)]));
  h.add(snapshot(11, [viewer('a', 220)]));
  h.add(snapshot(12, [viewer('a', 240), viewer('b', 500)]));
  assert.equal(notified, 3);
  assert.equal(h.nowX(), 2);
  assert.deepEqual(h.data('a', 0), [[0, 1, 2], [200, 220, 240], [190, 210, 230], [0.2, 0.2, 0.2], [0.1, 0.1, 0.1], [0.1, 0.1, 0.1], [null, null, null]]);
  assert.deepEqual(h.data('a', 1.5)[0], [2]);
  // b left at 11 s: its history restarted when it came back.
  assert.deepEqual(h.data('b', 0)[0], [2]);
  assert.equal(h.has('c'), false);
  assert.deepEqual(h.data('c', 0), [[], [], [], [], [], [], []]);
});
