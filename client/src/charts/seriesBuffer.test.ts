import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeriesBuffer } from './seriesBuffer';

describe('SeriesBuffer', () => {
  it('returns column arrays of the points in the window', () => {
    const s = new SeriesBuffer(2, 10);
    s.push(1, [10, null]);
    s.push(2, [20, 0.5]);
    s.push(3, [30, 0.25]);
    assert.deepEqual(s.since(2), [
      [2, 3],
      [20, 30],
      [0.5, 0.25],
    ]);
  });

  it('keeps the newest points and checks the column count', () => {
    const s = new SeriesBuffer(1, 2);
    for (let x = 0; x < 5; x++) s.push(x, [x]);
    assert.deepEqual(s.since(-Infinity), [[3, 4], [3, 4]]);
    assert.throws(() => s.push(9, [1, 2]), RangeError);
  });
});
