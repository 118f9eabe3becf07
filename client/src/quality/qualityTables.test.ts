import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityTables } from './qualityTables';

const row = (index: number, crc = index): QualityFrame => ({
  index,
  tid: 0,
  crc,
  psnr: [30, 25],
});

describe('QualityTables', () => {
  it('looks up PSNR of a shown frame for the frame due, once the row is known', () => {
    const t = new QualityTables();
    assert.equal(t.psnr(10, 10), undefined);
    t.addRows([row(10)]);
    assert.equal(t.psnr(10, 10), 30);
    assert.equal(t.psnr(10, 9), 25);
    assert.equal(t.psnr(10, 2), null, 'too far back: not in the row');
    t.addRows([{ index: 20, tid: 0, crc: 20, psnr: [30, null, 20] }]);
    assert.equal(t.psnr(20, 19), null, 'a frame the server did not decode');
    assert.equal(t.psnr(20, 18), 20);
    assert.equal(t.tid(10), 0);
  });

  it('compares our checksums with the server rows, whichever comes first', () => {
    const t = new QualityTables();
    t.decodedChecksum(1, 1); // before its row
    t.addRows([row(1), row(2), row(3, 33)]);
    t.decodedChecksum(2, 2); // after its row
    t.decodedChecksum(3, 3);
    assert.deepEqual(t.checksums, { compared: 3, mismatches: 1 });
  });

  it('keeps a table per rendition: a frame decoded in a lower one is checked and scored with that one\'s rows', () => {
    const t = new QualityTables();
    const low = (index: number): QualityFrame => ({ index, tid: 0, crc: 1000 + index, psnr: [27], rendition: 1 });
    t.addRows([row(5), row(6)]);
    t.decodedRendition(6, 1);
    t.decodedChecksum(6, 1006); // before rendition 1's row
    t.addRows([low(5), low(6)]);
    t.decodedRendition(5, 0);
    t.decodedChecksum(5, 5);
    assert.deepEqual(t.checksums, { compared: 2, mismatches: 0 });
    assert.equal(t.psnr(6, 6), 27);
    assert.equal(t.psnr(5, 5), 30);
  });

  it('keeps only the newest rows', () => {
    const t = new QualityTables(2);
    t.addRows([row(1), row(2), row(3)]);
    assert.equal(t.psnr(1, 1), undefined);
    assert.equal(t.psnr(3, 3), 30);
  });
});
