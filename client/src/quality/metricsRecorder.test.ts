import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyStats } from '../player/stats';
import { MetricsRecorder, metricsCsv } from './metricsRecorder';

const state = { stats: { ...emptyStats(), fps: { total: 30, tid0: 7.5, tid1: 7.5, tid2: 15 }, freezes: 1 }, viewerState: undefined, utility: 0.9 };

describe('MetricsRecorder', () => {
  it('puts each displayed period in its second and the state at the end of the second', () => {
    const m = new MetricsRecorder(10_000);
    m.samples([
      { t: 10_100, index: 1, shown: 1, psnr: 30 },
      { t: 10_200, index: 2, shown: 1, psnr: 24 },
      { t: 11_500, index: 3, shown: 3, psnr: null },
    ]);
    m.endOfSecond(11_010, state); // second 0 ended
    m.endOfSecond(12_005, state);
    const [first, second] = m.rows();
    assert.deepEqual(
      { t: first!.t, psnrMean: first!.psnrMean, psnrMin: first!.psnrMin, periods: first!.periods, repeats: first!.repeats, fps: first!.fps, freezes: first!.freezes },
      { t: 0, psnrMean: 27, psnrMin: 24, periods: 2, repeats: 1, fps: 30, freezes: 1 },
    );
    assert.equal(second!.psnrMean, null, 'a period without a score');
    assert.equal(second!.rateKbps, null, 'no server state yet');
  });

  it('scores that arrive after their second ended still count there', () => {
    const m = new MetricsRecorder(0);
    m.endOfSecond(1000, state);
    m.samples([{ t: 500, index: 1, shown: 1, psnr: 31 }]);
    assert.equal(m.rows()[0]!.psnrMean, 31);
  });

  it('writes CSV with a header, empty cells for unknown values', () => {
    const m = new MetricsRecorder(0);
    m.samples([{ t: 10, index: 0, shown: 0, psnr: 29.12345 }]);
    m.endOfSecond(1000, state);
    const [header, line] = metricsCsv(m.rows()).trim().split('\n');
    assert.ok(header!.startsWith('t,psnrMean,psnrMin,periods,repeats,fps,'));
    assert.ok(line!.startsWith('0,29.123,29.123,1,0,30,'));
    assert.ok(line!.endsWith(',,,,,,,,0.9'), line);
  });
});
