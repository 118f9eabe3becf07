import assert from 'node:assert/strict';
import { test } from 'node:test';
import { intelligibleFrames } from './uptaScenario';

test('a frame is intelligible only while it and every frame back to its intra frame lost at most q', () => {
  const f = (lost: number) => ({ sent: 10, lost });
  // GOP of 3: frame 1 is over q, so frames 1 and 2 are lost; the next intra frame recovers.
  assert.equal(intelligibleFrames([f(0), f(2), f(0), f(1), f(0), f(0)], 3, 0.12), 4);
});
