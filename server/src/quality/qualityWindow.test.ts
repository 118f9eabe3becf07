import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityWindow } from './qualityWindow';

const row = (index: number): QualityFrame => ({ index, tid: 0, crc: index, psnr: [30] });
const indexes = (rows: QualityFrame[]) => rows.map((r) => r.index);

describe('QualityWindow', () => {
  it('returns the rows after an index, in order', () => {
    const w = new QualityWindow(10);
    w.add([row(1), row(2), row(3)]);
    w.add([row(4)]);
    assert.deepEqual(indexes(w.after(2)), [3, 4]);
    assert.deepEqual(indexes(w.after(-1)), [1, 2, 3, 4]);
    assert.deepEqual(indexes(w.after(4)), []);
    assert.equal(w.newestIndex, 4);
  });

  it('keeps only the newest rows', () => {
    const w = new QualityWindow(3);
    w.add([1, 2, 3, 4, 5].map(row));
    assert.deepEqual(indexes(w.after(-1)), [3, 4, 5]);
  });

  it('puts a late row in its place and replaces a repeated one', () => {
    const w = new QualityWindow(10);
    w.add([row(1), row(3), row(2)]);
    w.add([{ ...row(3), crc: 99 }]);
    assert.deepEqual(indexes(w.after(0)), [1, 2, 3]);
    assert.equal(w.after(2)[0]?.crc, 99);
  });

  it('is empty at first', () => {
    assert.equal(new QualityWindow(1).newestIndex, undefined);
    assert.throws(() => new QualityWindow(0), RangeError);
  });
});
