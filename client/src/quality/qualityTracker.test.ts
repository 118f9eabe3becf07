import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QualityTables } from './qualityTables';
import { QualityTracker } from './qualityTracker';

const F = 1000 / 30;

function tablesFor(indexes: number[], db: (i: number, j: number) => number): QualityTables {
  const t = new QualityTables();
  t.addRows(indexes.map((i) => ({ index: i, tid: 0, crc: 0, psnr: [0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => db(i, i - k)) })));
  return t;
}

describe('QualityTracker', () => {
  it('scores each displayed period with table[due][shown] once the row is there', () => {
    const tables = new QualityTables();
    const q = new QualityTracker(tables, { frameMs: F });
    q.displayed({ t: 0, index: 4, shown: 4 });
    q.displayed({ t: F, index: 5, shown: 4 });
    assert.deepEqual(q.resolve(100), [], 'no row yet');
    tables.addRows([
      { index: 4, tid: 0, crc: 0, psnr: [30] },
      { index: 5, tid: 2, crc: 0, psnr: [31, 24] },
    ]);
    assert.deepEqual(q.resolve(200), [
      { t: 0, index: 4, shown: 4, psnr: 30 },
      { t: F, index: 5, shown: 4, psnr: 24 },
    ]);
    assert.deepEqual(q.psnr(), { mean: 27, p5: 24, last: 24 });
  });

  it('scores null a frame too old for the row, or a row that never came', () => {
    const q = new QualityTracker(tablesFor([20], () => 30), { frameMs: F, rowTimeoutMs: 1000 });
    q.displayed({ t: 0, index: 20, shown: 3 });
    q.displayed({ t: F, index: 21, shown: 3 });
    assert.deepEqual(q.resolve(500).map((s) => s.psnr), [null]);
    assert.deepEqual(q.resolve(1100).map((s) => s.psnr), [null]);
    assert.deepEqual(q.psnr(), { mean: null, p5: null, last: null });
  });

  it('takes the 5th percentile over the session', () => {
    const indexes = Array.from({ length: 100 }, (_, i) => i + 10);
    const q = new QualityTracker(tablesFor(indexes, (i) => (i < 15 ? 20 : 35)), { frameMs: F });
    for (const i of indexes) q.displayed({ t: i * F, index: i, shown: i });
    q.resolve(1e6);
    const s = q.psnr();
    assert.equal(s.p5, 20);
    assert.ok(Math.abs(s.mean! - (5 * 20 + 95 * 35) / 100) < 1e-9);
  });

  it('counts a freeze when one frame stays on screen more than 200 ms, once per freeze', () => {
    const q = new QualityTracker(new QualityTables(), { frameMs: F });
    const show = (shown: number, periods: number) => {
      for (let k = 0; k < periods; k++) q.displayed({ t: 0, index: 0, shown });
    };
    show(1, 4); // base layer only: 133 ms each
    show(2, 6); // 200 ms: not more
    assert.equal(q.freezes, 0);
    show(3, 7); // 233 ms
    show(4, 30);
    assert.equal(q.freezes, 2);
  });
});
