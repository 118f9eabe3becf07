/**
 * Scores the display: each frame period's sample (displayClock.ts) gets the PSNR of
 * the frame shown against the frame due, from the server's table once its row has
 * come; the session's PSNR summary and freezes are kept here. Pure.
 */
import type { DisplaySample, PsnrSummary, QualitySample } from '@pels/shared/protocol/playerHook';
import type { QualityTables } from './qualityTables';

export type { PsnrSummary, QualitySample };
export interface QualityTrackerOptions {
  frameMs: number;
  /** A frame on screen longer than this is a freeze. */
  freezeMs?: number;
  /** How long a sample waits for its row before it is scored null. */
  rowTimeoutMs?: number;
}

/** p5 from a histogram of 0.1 dB bins: memory stays flat over a long session. */
const BIN_DB = 0.1;
const BINS = 1000;

export class QualityTracker {
  private readonly queue: DisplaySample[] = [];
  private readonly histogram = new Uint32Array(BINS);
  private count = 0;
  private sum = 0;
  private last: number | null = null;
  private freezeCount = 0;
  /** Periods a frame may stay on screen without being a freeze. */
  private readonly freezePeriods: number;
  private readonly rowTimeoutMs: number;
  private run = { shown: NaN, periods: 0 };

  constructor(
    private readonly tables: QualityTables,
    options: QualityTrackerOptions,
  ) {
    // 200 ms at 30 fps is 6 periods exactly: the epsilon keeps float error from making it 5.
    this.freezePeriods = Math.floor((options.freezeMs ?? 200) / options.frameMs + 1e-9);
    this.rowTimeoutMs = options.rowTimeoutMs ?? 5000;
  }

  displayed(sample: DisplaySample): void {
    this.queue.push(sample);
    if (sample.shown === this.run.shown) this.run.periods++;
    else this.run = { shown: sample.shown, periods: 1 };
    if (this.run.periods === this.freezePeriods + 1) this.freezeCount++;
  }

  /** The samples scored since the last call, in display order. */
  resolve(nowMs: number): QualitySample[] {
    const out: QualitySample[] = [];
    while (this.queue.length > 0) {
      const s = this.queue[0]!;
      const psnr = this.tables.psnr(s.index, s.shown);
      if (psnr === undefined && nowMs - s.t < this.rowTimeoutMs) break;
      this.queue.shift();
      const scored = psnr ?? null;
      if (scored !== null) this.record(scored);
      out.push({ ...s, psnr: scored });
    }
    return out;
  }

  get freezes(): number {
    return this.freezeCount;
  }

  psnr(): PsnrSummary {
    if (this.count === 0) return { mean: null, p5: null, last: null };
    const rank = Math.ceil(0.05 * this.count);
    let seen = 0;
    let bin = 0;
    for (; bin < BINS; bin++) {
      seen += this.histogram[bin]!;
      if (seen >= rank) break;
    }
    return { mean: this.sum / this.count, p5: Math.round(bin * BIN_DB * 10) / 10, last: this.last };
  }

  private record(db: number): void {
    this.count++;
    this.sum += db;
    this.last = db;
    this.histogram[Math.min(BINS - 1, Math.max(0, Math.floor(db / BIN_DB)))]!++;
  }
}
