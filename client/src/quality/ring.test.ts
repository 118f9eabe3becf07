import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ring } from './ring';

describe('Ring', () => {
  it('keeps the newest items, oldest first', () => {
    const r = new Ring<number>(3);
    assert.deepEqual(r.toArray(), []);
    for (let i = 1; i <= 5; i++) r.push(i);
    assert.deepEqual(r.toArray(), [3, 4, 5]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    assert.throws(() => new Ring(0), RangeError);
  });
});
