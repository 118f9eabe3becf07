import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tcpFlowResults } from './tcpMetrics';

test('per-second TCP throughput, second-half mean and completion from cumulative bytes', () => {
  const samples = [{ tcpBytes: null }, { tcpBytes: [1000] }, { tcpBytes: [3000] }, { tcpBytes: [3000] }, { tcpBytes: [5000] }];
  const [f] = tcpFlowResults(samples, [{ atS: 3.5, bytes: 5000, complete: true }], 2);
  assert.deepEqual(f!.kbpsPerSecond, [0, 8, 16, 0, 16]);
  assert.equal(f!.secondHalfKbps, 8); // 2000 bytes over the 2 s after sample 2
  assert.equal(f!.completionS, 3.5);
  assert.equal(f!.bytes, 5000);
});

test('a flow cut before its size arrived has no completion time', () => {
  const [f] = tcpFlowResults([{ tcpBytes: [10] }, { tcpBytes: [20] }], [{ atS: 1, bytes: 20, complete: false }], 0);
  assert.equal(f!.completionS, null);
});
