/**
 * Pools one router's eq. 11 samples until they span a window, then gives one
 * sample for the whole window: p = (R - C) / R from the bytes offered and the
 * capacity summed over it.
 *
 * Why: the server sends each frame to every viewer at once, as a burst of
 * packets, so over a short T (100 ms is 3 frames) the offered rate R swings
 * with the frame sizes and the frame-selection decisions. p = 1 - C / R is
 * concave in R, so the mean of per-interval p lies below the p of the mean
 * rate (Jensen), and an interval with few frames clamps p to -1, which MKC
 * reads as room to grow by half. Stepped on every such sample, the flows
 * settle well above C/N + alpha/beta and the router drops all red and then
 * yellow. Pooled over a few periods of 4 frames, R is the rate the
 * controllers act on and p its loss.
 */

/** Long enough to hold a few periods of 4 frames at 30 fps; MKC then steps twice a second, more often than on RTCP. */
export const ROUTER_FEEDBACK_WINDOW_MS = 500;

export interface RouterSampleIn {
  epoch: number;
  /** The router's own p for this sample: passed through when it does not say what was offered. */
  p: number;
  intervalMs: number;
  offeredKbps?: number | undefined;
  capacityKbps?: number | undefined;
}

export interface PooledRouterSample {
  /** The last pooled sample's epoch. */
  epoch: number;
  /** (R - C) / R over the pooled interval, in [-1, 1]. */
  p: number;
  /** The pooled interval's length. */
  intervalMs: number;
}

export class BottleneckFeedbackPool {
  private offered = 0;
  private capacity = 0;
  private spanMs = 0;
  private lastEpoch = -Infinity;

  constructor(readonly windowMs: number = ROUTER_FEEDBACK_WINDOW_MS) {
    if (!(Number.isFinite(windowMs) && windowMs >= 0)) throw new RangeError(`windowMs must be a finite number >= 0; got ${windowMs}`);
  }

  /** Takes one sample; gives the pooled sample once the pool spans the window, else null. */
  add(s: RouterSampleIn): PooledRouterSample | null {
    // A repeated or reordered sample is already counted (or too late to be).
    if (!(s.epoch > this.lastEpoch)) return null;
    this.lastEpoch = s.epoch;
    if (s.offeredKbps === undefined || s.capacityKbps === undefined) {
      this.clear();
      return { epoch: s.epoch, p: s.p, intervalMs: s.intervalMs };
    }
    // kb/s x ms: bits, in the same unit for both.
    this.offered += s.offeredKbps * s.intervalMs;
    this.capacity += s.capacityKbps * s.intervalMs;
    this.spanMs += s.intervalMs;
    if (this.spanMs < this.windowMs) return null;
    const p = this.offered > 0 ? Math.max(-1, Math.min(1, (this.offered - this.capacity) / this.offered)) : -1;
    const out = { epoch: s.epoch, p, intervalMs: this.spanMs };
    this.clear();
    return out;
  }

  private clear(): void {
    this.offered = 0;
    this.capacity = 0;
    this.spanMs = 0;
  }
}
