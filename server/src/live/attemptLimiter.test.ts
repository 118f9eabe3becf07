import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AttemptLimiter } from './attemptLimiter';

test('an address gets perMinute attempts at once, then one per 60/perMinute seconds; others are apart', () => {
  const l = new AttemptLimiter(3);
  assert.deepEqual([1, 2, 3, 4].map(() => l.take('10.0.0.1', 0)), [true, true, true, false]);
  assert.equal(l.take('10.0.0.2', 0), true);
  assert.equal(l.take('10.0.0.1', 19_000), false);
  assert.equal(l.take('10.0.0.1', 20_000), true);
  assert.equal(l.take('10.0.0.1', 20_000), false);
  // Refused attempts do not push the refill back.
  assert.equal(l.take('10.0.0.1', 40_000), true);
});

test('the addresses remembered stay bounded: full buckets go first, then the oldest', () => {
  const l = new AttemptLimiter(2, 3);
  l.take('a', 0);
  l.take('b', 0);
  l.take('c', 0);
  l.take('d', 60_000);
  assert.equal(l.size, 1);
  for (const x of ['e', 'f', 'g']) l.take(x, 60_000);
  assert.equal(l.size, 3);
  assert.throws(() => new AttemptLimiter(0), /perMinute must be at least 1/);
});
