/**
 * When a stream's encoder may be asked for a keyframe. Viewers that join and
 * players whose base layer broke ask for one, and one keyframe serves them
 * all; but a keyframe costs many frames' worth of bits, so many viewers must
 * not turn the stream into keyframes. Keyframes are forced at least
 * `minGapMs` after the last keyframe of any kind (periodic ones too): a
 * request inside the gap is held, never dropped, and every request held is
 * served by one keyframe at the end of the gap, or by any keyframe that comes
 * first. Pure: the caller gives the time and runs the timer for `dueAtMs`.
 */
export class KeyframeThrottle {
  /** Last keyframe forced or seen. */
  private lastMs = -Infinity;
  private held = false;

  constructor(readonly minGapMs: number) {
    if (!(Number.isFinite(minGapMs) && minGapMs >= 0)) throw new RangeError(`minGapMs must be a finite number >= 0; got ${minGapMs}`);
  }

  /** A request: true when a keyframe is to be forced now, false when it is held (until dueAtMs, or served sooner). */
  request(nowMs: number): boolean {
    if (this.held) return false;
    if (nowMs - this.lastMs >= this.minGapMs) {
      this.lastMs = nowMs;
      return true;
    }
    this.held = true;
    return false;
  }

  /** When the held requests are due; null when none is held. */
  get dueAtMs(): number | null {
    return this.held ? this.lastMs + this.minGapMs : null;
  }

  /** The caller's timer for dueAtMs: true when the held requests' keyframe is to be forced now. */
  due(nowMs: number): boolean {
    if (!this.held || nowMs < this.lastMs + this.minGapMs) return false;
    this.held = false;
    this.lastMs = nowMs;
    return true;
  }

  /** A keyframe came from the encoder (asked for or periodic): it serves every held request, and the gap starts again. */
  keyframe(nowMs: number): void {
    this.held = false;
    this.lastMs = Math.max(this.lastMs, nowMs);
  }
}
