import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meanSquaredError, PSNR_CAP_DB, psnrFromMse, yPsnr } from './psnr';

describe('PSNR', () => {
  it('is 10 log10(255^2 / MSE)', () => {
    const cases: [number, number][] = [
      [1, 48.1308],
      [65025, 0],
      [100, 28.1308],
      [6.5025, 40],
    ];
    for (const [mse, want] of cases) assert.ok(Math.abs(psnrFromMse(mse) - want) < 1e-4, `MSE ${mse}: ${psnrFromMse(mse)}`);
  });

  it('caps identical planes, and anything better than the cap, at PSNR_CAP_DB', () => {
    assert.equal(PSNR_CAP_DB, 99);
    assert.equal(yPsnr(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])), PSNR_CAP_DB);
    assert.equal(psnrFromMse(1e-12), PSNR_CAP_DB);
  });

  it('averages squared differences over the plane', () => {
    assert.equal(meanSquaredError(new Uint8Array([0, 0, 10, 255]), new Uint8Array([0, 2, 6, 0])), (4 + 16 + 65025) / 4);
  });

  it('refuses planes of different or zero size, and a negative MSE', () => {
    assert.throws(() => meanSquaredError(new Uint8Array(4), new Uint8Array(5)), RangeError);
    assert.throws(() => meanSquaredError(new Uint8Array(0), new Uint8Array(0)), RangeError);
    assert.throws(() => psnrFromMse(-1), RangeError);
  });
});
