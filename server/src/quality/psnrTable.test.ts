import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 } from '@pels/shared/crc32';
import { PSNR_CAP_DB, psnrFromMse } from './psnr';
import { PsnrTableBuilder } from './psnrTable';

/** A 4x4 plane whose every pixel is `value`: planes v and w differ by MSE (v-w)^2. */
function plane(value: number): Uint8Array {
  return new Uint8Array(16).fill(value);
}

const db = (mse: number) => Math.round(psnrFromMse(mse) * 100) / 100;

describe('PsnrTableBuilder', () => {
  it('scores frame i against decoded i and the frames before it that may stand in for it', () => {
    const t = new PsnrTableBuilder({ back: 3 });
    for (let i = 0; i < 5; i++) t.addDecoded(i, 0, plane(100 + i));
    const [row] = t.addSource(4, plane(104));
    assert.deepEqual(row, {
      index: 4,
      tid: 0,
      crc: crc32(plane(104)),
      psnr: [PSNR_CAP_DB, db(1), db(4), db(9)],
    });
  });

  it('emits a row when the second of the two planes i arrives, whichever it is', () => {
    const t = new PsnrTableBuilder({ back: 2 });
    assert.deepEqual(t.addSource(0, plane(10)), []);
    assert.equal(t.addDecoded(0, 0, plane(10))[0]?.index, 0);
    assert.deepEqual(t.addDecoded(1, 2, plane(11)), []);
    const [row] = t.addSource(1, plane(12));
    assert.deepEqual(row, { index: 1, tid: 2, crc: crc32(plane(11)), psnr: [db(1), db(4)] });
  });

  it('leaves out frames it never decoded (before the stream started)', () => {
    const t = new PsnrTableBuilder({ back: 8 });
    t.addDecoded(100, 0, plane(0));
    assert.deepEqual(t.addSource(100, plane(0))[0]?.psnr, [PSNR_CAP_DB]);
  });

  it('marks a frame it did not decode inside the window null, and ends the row at its oldest entry', () => {
    const t = new PsnrTableBuilder({ back: 4 });
    t.addDecoded(10, 0, plane(10));
    t.addDecoded(12, 0, plane(12));
    assert.deepEqual(t.addSource(12, plane(12))[0]?.psnr, [PSNR_CAP_DB, null, db(4)]);
  });

  it('bounds the source planes waiting for a decoder that stopped', () => {
    const t = new PsnrTableBuilder({ back: 2, maxPending: 3 });
    for (let i = 0; i < 10; i++) t.addSource(i, plane(i));
    assert.deepEqual(t.addDecoded(5, 0, plane(5)), [], 'source 5 was dropped');
    assert.equal(t.addDecoded(9, 0, plane(9))[0]?.index, 9);
  });

  it('keeps few decoded planes: a late source gets only the ones still held', () => {
    const t = new PsnrTableBuilder({ back: 2 });
    for (let i = 0; i < 40; i++) t.addDecoded(i, 0, plane(i));
    assert.deepEqual(t.addSource(5, plane(5)), [], 'decoded 5 is long gone: the source waits, then ages out');
    assert.equal(t.addSource(35, plane(35))[0]?.psnr.length, 3);
  });
});
