/**
 * Each rendition's base-layer rate as read over the last `windowMs`: its lowest
 * and highest readings. The measured base rate swings with the content and with
 * forced keyframes (1.5-3x within 10 s on the city clip), so a move up sized on
 * one low reading lands under the next high one's down threshold. Pure: the
 * caller gives the time. A reading is kept when the caller hands a new array
 * (the stream updates them once a second), so the window holds a few entries,
 * and the extremes are worked out then, not on each read (the policy reads them
 * for every frame set).
 */
type Bases = readonly (number | null)[];

export class RecentBases {
  private readings: { atMs: number; bases: Bases }[] = [];
  private lows: (number | null)[] = [];
  private highs: (number | null)[] = [];

  constructor(private readonly windowMs: number) {
    if (!(Number.isFinite(windowMs) && windowMs >= 0)) throw new RangeError(`windowMs must be a finite number >= 0; got ${windowMs}`);
  }

  add(bases: Bases, nowMs: number): void {
    const last = this.readings.at(-1);
    if (last?.bases === bases) return;
    this.readings.push({ atMs: nowMs, bases });
    // A reading counts while it was in effect within the window (until the next one came); the latest always does.
    while (this.readings.length > 1 && this.readings[1]!.atMs <= nowMs - this.windowMs) this.readings.shift();
    this.lows = bases.map((_, i) => this.extreme(i, Math.min));
    this.highs = bases.map((_, i) => this.extreme(i, Math.max));
  }

  /** Rendition i's lowest reading in the window; null while its latest is unknown (nothing moves on an unknown rate). */
  low(i: number): number | null {
    return this.lows[i] ?? null;
  }

  /** Rendition i's highest reading in the window; null while its latest is unknown. */
  high(i: number): number | null {
    return this.highs[i] ?? null;
  }

  private extreme(i: number, pick: (a: number, b: number) => number): number | null {
    const latest = this.readings.at(-1)?.bases[i];
    if (latest === null || latest === undefined) return null;
    let x = latest;
    for (const r of this.readings) {
      const v = r.bases[i];
      if (v !== null && v !== undefined) x = pick(x, v);
    }
    return x;
  }
}
