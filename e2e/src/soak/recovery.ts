/**
 * When every viewer decodes again after a fault, from the viewers' decoded-frame
 * counters sampled a few times a second. Pure: samples and times are given.
 *
 * A viewer is hit when it stalls (no new frame for STALL_MS) after the fault
 * began; it is back at the first sample where it has decoded MIN_FRAMES frames
 * within the last second, all after the stall began. A viewer that does not
 * stall within GRACE_MS of the fault's end was never hit (recovery 0): frames
 * already in flight when a process dies can keep it playing for a moment, so
 * the stall may begin a little after the fault.
 */

export const STALL_MS = 500;
export const MIN_FRAMES = 5;
export const GRACE_MS = 3000;

interface ViewerTrack {
  /** Decoded-frame counter made monotonic (a new session restarts the player's count). */
  total: number;
  lastRaw: number;
  lastIncreaseMs: number;
  /** The stall, once seen: the time of its last frame before the gap, and the count then. */
  stall: { fromMs: number; total: number } | null;
  /** Samples since the stall was seen. */
  since: Array<{ t: number; total: number }>;
  backAtMs: number | null;
}

export class RecoveryTracker {
  private readonly viewers: ViewerTrack[];

  /** `startMs`: when the fault was injected; `endMs`: when it was over; `counts`: each viewer's counter at `startMs`. */
  constructor(
    startMs: number,
    private readonly endMs: number,
    counts: readonly number[],
  ) {
    this.viewers = counts.map((c) => ({ total: 0, lastRaw: c, lastIncreaseMs: startMs, stall: null, since: [], backAtMs: null }));
  }

  /** One sample of every viewer's decoded-frame counter at time `t`. */
  sample(t: number, counts: readonly number[]): void {
    counts.forEach((raw, i) => {
      const v = this.viewers[i];
      if (!v || v.backAtMs !== null) return;
      const added = raw >= v.lastRaw ? raw - v.lastRaw : raw; // a smaller count: a new session counting from 0
      v.lastRaw = raw;
      if (v.stall === null && added === 0 && t - v.lastIncreaseMs >= STALL_MS) v.stall = { fromMs: v.lastIncreaseMs, total: v.total };
      v.total += added;
      if (added > 0) v.lastIncreaseMs = t;
      if (v.stall === null) return;
      v.since.push({ t, total: v.total });
      // Frames in the last second, none from before the stall.
      const before = v.since.filter((s) => s.t <= t - 1000).at(-1)?.total ?? v.stall.total;
      if (v.total - Math.max(before, v.stall.total) >= MIN_FRAMES) v.backAtMs = t;
    });
  }

  /**
   * Each viewer's recovery from the fault's end (0: not hit; null while it is out or may yet stall), and when its
   * first frame after the stall came (null: none yet, or not hit): a gap between the two is a slow decode rate after
   * the stall, not a stall that lasted.
   */
  perViewer(t: number): Array<{ backMs: number | null; firstFrameMs: number | null }> {
    return this.viewers.map((v) => {
      const first = v.stall ? v.since.find((s) => s.total > v.stall!.total) : undefined;
      return {
        backMs: v.backAtMs !== null ? Math.max(0, v.backAtMs - this.endMs) : v.stall === null && t >= this.endMs + GRACE_MS ? 0 : null,
        firstFrameMs: first ? first.t - this.endMs : null,
      };
    });
  }

  /**
   * Milliseconds from the fault's end until every viewer decodes again (0 when none was hit), or
   * 'pending' while some viewer is still out or may yet stall, judged at time `t`.
   */
  recoveryMs(t: number): number | 'pending' {
    let worst = 0;
    for (const v of this.viewers) {
      if (v.backAtMs !== null) worst = Math.max(worst, v.backAtMs - this.endMs);
      else if (v.stall !== null || t < this.endMs + GRACE_MS) return 'pending';
    }
    return Math.max(0, worst);
  }
}
