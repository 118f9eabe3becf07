import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityTables } from './qualityTables';

const row = (index: number, crc = index): QualityFrame => ({
  index,
  tid: 0,
  crc,
  psnr: [
    [index, 30],
    [index - 1, 25],
  ],
});

describe('QualityTables', () => {
  it('looks up PSNR of a shown frame for the frame due, once the row is known', () => {
    const t = new QualityTables();
    assert.equal(t.psnr(10, 10), undefined);
    t.addRows([row(10)]);
    assert.equal(t.psnr(10, 10), 30);
    assert.equal(t.psnr(10, 9), 25);
    assert.equal(t.psnr(10, 2), null, 'too far back: not in the row');
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

  it('keeps only the newest rows', () => {
    const t = new QualityTables(2);
    t.addRows([row(1), row(2), row(3)]);
    assert.equal(t.psnr(1, 1), undefined);
    assert.equal(t.psnr(3, 3), 30);
  });
});
