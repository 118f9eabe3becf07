import type { KeyframeCounts } from '@pels/shared/protocol/operator';
import { KeyframeThrottle } from './keyframeThrottle';

/** Why a keyframe was asked for: a viewer starts receiving (`join`), a player lost its base chain (`pli`: a PLI or FIR on green), or a viewer moves to this rendition (`switch`). */
export type KeyframeReason = keyof KeyframeCounts['requests'];
export const KEYFRAME_REASONS: readonly KeyframeReason[] = ['join', 'pli', 'switch'];

/**
 * A stream's keyframe requests: throttled (KeyframeThrottle), held ones
 * forced by a timer when their gap ends, and counted.
 */
export class KeyframeRequests {
  private readonly throttle: KeyframeThrottle;
  private timer: NodeJS.Timeout | null = null;
  private readonly counts: KeyframeCounts = { requests: { join: 0, pli: 0, switch: 0 }, forced: 0 };

  constructor(
    minGapMs: number,
    /** Asks the encoder for a keyframe. */
    private readonly force: () => void,
  ) {
    this.throttle = new KeyframeThrottle(minGapMs);
  }

  request(reason: KeyframeReason): void {
    this.counts.requests[reason]++;
    if (this.throttle.request(Date.now())) this.forceNow();
    else this.armTimer();
  }

  /** A keyframe came from the encoder. */
  onKeyframe(): void {
    this.throttle.keyframe(Date.now());
  }

  get totals(): KeyframeCounts {
    return { requests: { ...this.counts.requests }, forced: this.counts.forced };
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private forceNow(): void {
    this.counts.forced++;
    this.force();
  }

  private armTimer(): void {
    const due = this.throttle.dueAtMs;
    if (due === null || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.throttle.due(Date.now())) this.forceNow();
      // Served sooner by a keyframe: a request held since then has a later due time.
      else this.armTimer();
    }, Math.max(0, due - Date.now()));
  }
}
