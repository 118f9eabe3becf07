import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs } from './backoff';

test('doubles from the first delay and stops at the cap', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n)), [500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  assert.equal(backoffMs(0), 500);
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffMs(n, 500, 5000)), [500, 1000, 2000, 4000]);
  assert.equal(backoffMs(9, 500, 5000), 5000);
});
