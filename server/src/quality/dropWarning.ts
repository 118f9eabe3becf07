import type { Logger } from '../log';

/** Planes dropped are logged at most this often. */
const DROP_LOG_MS = 10_000;

/** Where planes are dropped unscored: a quality worker's queue full (the reader), or a plane waited past the limit in it. */
export const DROP_SITES = ['reference reader', 'quality thread'] as const;
export type DropSite = (typeof DROP_SITES)[number];

/** A stream's planes dropped unscored so far, by where (for /metrics); counted across its threads' restarts. */
export type QualityDrops = Record<DropSite, number>;

export function noQualityDrops(): QualityDrops {
  return { 'reference reader': 0, 'quality thread': 0 };
}

/**
 * The "quality measurement fell behind" warning: planes dropped unscored are
 * counted in `drops` at once, and summed and logged at most every 10 s, with where
 * (`at`) and what dropped them (`fields`).
 */
export class DropWarning {
  private dropped = 0;
  private lastLog = -Infinity;

  constructor(
    private readonly log: Logger,
    private readonly at: DropSite,
    private readonly fields: Record<string, unknown>,
    private readonly drops: QualityDrops,
  ) {}

  note(planes: number): void {
    this.drops[this.at] += planes;
    this.dropped += planes;
    const now = Date.now();
    if (now - this.lastLog < DROP_LOG_MS) return;
    this.log.warn({ planes: this.dropped, at: this.at, ...this.fields }, 'quality measurement fell behind (the machine is short of CPU): planes dropped unscored, their frames get no PSNR row');
    this.dropped = 0;
    this.lastLog = now;
  }
}
