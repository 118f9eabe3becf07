import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scalePlane } from './planeScale';

test('doubling interpolates between pixel centres and clamps at the edges', () => {
  const out = scalePlane(Uint8Array.from([0, 100]), { width: 2, height: 1 }, { width: 4, height: 2 });
  assert.deepEqual([...out], [0, 25, 75, 100, 0, 25, 75, 100]);
});

test('a flat plane stays flat; the same size is a copy; a wrong plane size is refused', () => {
  assert.ok(scalePlane(new Uint8Array(16 * 9).fill(77), { width: 16, height: 9 }, { width: 32, height: 18 }).every((v) => v === 77));
  const p = Uint8Array.from([1, 2, 3, 4]);
  assert.deepEqual([...scalePlane(p, { width: 2, height: 2 }, { width: 2, height: 2 })], [1, 2, 3, 4]);
  assert.throws(() => scalePlane(p, { width: 3, height: 2 }, { width: 6, height: 4 }), RangeError);
});
