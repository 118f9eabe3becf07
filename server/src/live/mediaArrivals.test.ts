import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MediaArrivals } from './mediaArrivals';

test("a frame's arrival by its instant since the first frame: the first frame at or past it (1 ms of rounding allowed)", () => {
  const a = new MediaArrivals();
  // 30 fps from timestamp 5000, each arriving 2 ms after its instant at a 1000 ms clock offset.
  for (let i = 0; i < 10; i++) a.note(5000 + Math.round((i * 1000) / 30), 1000 + (i * 1000) / 30 + 2);
  assert.equal(a.arrival(0), 1002);
  assert.equal(a.arrival(100), 1000 + 100 + 2);
  // Frame 2 (66.67 ms) was stamped 67: still frame 2.
  assert.equal(a.arrival((2 * 1000) / 30), 1000 + (2 * 1000) / 30 + 2);
  assert.equal(a.arrival(1000), undefined, 'not come yet');
  assert.equal(new MediaArrivals().arrival(0), undefined);
});

test('timestamps that wrap at 2^32 go on; one that goes back is not a later frame; old ones leave', () => {
  const a = new MediaArrivals();
  a.note(2 ** 32 - 10, 1);
  a.note(23, 2); // 33 ms later, past the wrap
  a.note(0, 3); // back: ignored
  assert.equal(a.arrival(33), 2);
  for (let i = 2; i < 1000; i++) a.note(((2 ** 32 - 10 + i * 33) >>> 0), 100 + i);
  assert.equal(a.arrival(0), undefined, 'the first frame has left');
  assert.equal(a.arrival(999 * 33), 1099);
});
