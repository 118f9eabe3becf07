import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OperatorSnapshot, OperatorStream } from '@pels/shared/protocol/operator';
import { measuredFps } from './streamRates';

const snap = (ms: number, streams: Array<[string, number]>) =>
  ({ at: new Date(ms).toISOString(), streams: streams.map(([id, framesIngested]) => ({ id, framesIngested }) as OperatorStream) }) as OperatorSnapshot;

test('frames ingested between snapshots over the time between them', () => {
  const prev = snap(10_000, [['a', 100], ['b', 50], ['gone', 7]]);
  const next = snap(12_000, [['a', 160], ['b', 20], ['new', 9]]);
  assert.deepEqual([...measuredFps(prev, next)], [['a', 30]]);
  assert.equal(measuredFps(null, next).size, 0);
  assert.equal(measuredFps(prev, snap(10_100, [['a', 103]])).size, 0, 'too close together');
});
