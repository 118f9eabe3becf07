import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leastLoadedOf } from './mediaWorkerPool';

test('a new viewer goes to the usable worker with the fewest viewers, not to one restarting with none', () => {
  // Worker 0 just died: its viewers were closed (0), its routers are not back yet.
  assert.equal(leastLoadedOf([0, 7, 5], (i) => i !== 0), 2);
  assert.equal(leastLoadedOf([0, 7, 5], () => true), 0);
  // Equals: the first.
  assert.equal(leastLoadedOf([3, 2, 2], () => true), 1);
  // None usable: the fewest of all (its stream answers "not available, try again").
  assert.equal(leastLoadedOf([4, 1], () => false), 1);
});
