/**
 * The player's signature, compact: the Y-PSNR of what is on screen, the layer
 * coverage of the last frame periods, and each color's loss. Beside the video on
 * a wide page, under it on a phone, over it in fullscreen (qualityPlacement.ts).
 * The full strip, the charts and the rest are in the lab panel.
 */
import { useSyncExternalStore } from 'react';
import { COLORS } from '@pels/shared/pels/color';
import type { QualityStore } from '../quality/qualityStore';
import type { QualityPlacement } from '../player/qualityPlacement';
import { CoverageCanvas } from './CoverageCanvas';
import { summarizeCoverage } from './CoverageStrip';

export function LiveQuality({ store, placement, size }: { store: QualityStore; placement: Exclude<QualityPlacement, 'hidden'>; size: string }) {
  const { columns, psnrAverage, stats, viewerState } = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const coverage = summarizeCoverage(columns);
  const own = coverage.periods ? coverage.shownOwn / coverage.periods : null;
  return (
    <aside className={`live-quality live-quality-${placement}`} aria-label="Live quality" data-testid="live-quality" data-placement={placement}>
      <div className="lq-psnr" title="Y-PSNR of the frames on screen against the source, over the last second (session mean and 5th percentile under it)">
        <span className="lq-label">PSNR</span>
        <span className="lq-big" data-testid="live-psnr">
          {psnrAverage === null ? '–' : psnrAverage.toFixed(1)}
          <small> dB</small>
        </span>
        <span className="lq-sub">
          mean {db(stats.psnr.mean)} · 5th pct {db(stats.psnr.p5)}
        </span>
      </div>
      <div className="lq-coverage" title="Layer coverage of the last frame periods: TID 2, 1, 0 by the color they came on; the bottom row is orange where an older frame was repeated">
        <span className="lq-label">
          Coverage <span className="lq-value" data-testid="live-own-frames">{own === null ? '–' : `${Math.round(own * 100)}% own frames`}</span>
        </span>
        <CoverageCanvas columns={columns} className="lq-strip" testId="live-coverage" />
      </div>
      <div className="lq-loss" title="Loss per color in the latest receiver report">
        <span className="lq-label">Loss</span>
        <span className="lq-colors">
          {COLORS.map((c) => (
            <span key={c} className="lq-color" data-testid={`live-loss-${c}`}>
              <span className={`dot ${c}`} /> {pct(viewerState?.perColor[c].recentLoss)}
            </span>
          ))}
        </span>
      </div>
      <div className="lq-footer">
        {stats.fps.total.toFixed(0)} fps · {size}
      </div>
    </aside>
  );
}

function db(v: number | null): string {
  return v === null ? '–' : v.toFixed(1);
}

function pct(v: number | null | undefined): string {
  return v == null ? '–' : `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
}
