import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlaneSplitter } from './planeSplitter';

describe('PlaneSplitter', () => {
  it('returns whole planes across any chunking', () => {
    const bytes = Uint8Array.from({ length: 20 }, (_, i) => i);
    for (const cut of [1, 3, 4, 7, 20]) {
      const s = new PlaneSplitter(4);
      const planes: number[][] = [];
      for (let off = 0; off < bytes.length; off += cut) for (const p of s.push(bytes.subarray(off, off + cut))) planes.push([...p]);
      assert.deepEqual(planes, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15], [16, 17, 18, 19]], `chunks of ${cut}`);
    }
  });

  it('gives each plane its own buffer', () => {
    const [a, b] = new PlaneSplitter(2).push(new Uint8Array([1, 2, 3, 4]));
    assert.notEqual(a!.buffer, b!.buffer);
    assert.equal(a!.byteOffset, 0);
  });

  it('refuses a size that is not a positive integer', () => {
    assert.throws(() => new PlaneSplitter(0), RangeError);
    assert.throws(() => new PlaneSplitter(1.5), RangeError);
  });
});
