/**
 * The useful share of received enhancement bytes (paper eq. 3, measured): bytes of
 * the yellow and red frames that were decodable and decoded, over the yellow and red
 * payload bytes that arrived, over a sliding window and over the session. Both
 * counters are cumulative; each reading pairs the two as known at one instant, so a
 * steady lag between them (frames on their way to the decoder) cancels out. Pure.
 */
export interface UtilityReading {
  /** Over the last window; null while no enhancement bytes arrived in it. */
  recent: number | null;
  session: number | null;
}

interface Point {
  tMs: number;
  received: number;
  useful: number;
}

function share(useful: number, received: number): number | null {
  // Clamped: payload bytes count a few descriptor bytes per packet that frames do not, and readings jitter.
  return received > 0 ? Math.min(1, Math.max(0, useful / received)) : null;
}

export class UtilityMeter {
  private readonly points: Point[] = [];

  constructor(private readonly windowMs = 5000) {}

  add(tMs: number, received: number, useful: number): void {
    this.points.push({ tMs, received, useful });
    // Keep one point at or before the window's start, to measure the whole window.
    while (this.points.length > 2 && this.points[1]!.tMs <= tMs - this.windowMs) this.points.shift();
  }

  reading(): UtilityReading {
    const first = this.points[0];
    const last = this.points.at(-1);
    if (!first || !last) return { recent: null, session: null };
    return { recent: share(last.useful - first.useful, last.received - first.received), session: share(last.useful, last.received) };
  }
}
