/** Rate changes kept for eq. 8's r(k - D); a few seconds of steps covers any round trip. */
const HISTORY_LIMIT = 64;

/**
 * The rates a flow was sent at, by time, so a feedback event can be judged
 * against the rate its measured traffic was sent at rather than today's.
 */
export class RateHistory {
  private readonly entries: Array<{ fromMs: number; kbps: number }>;

  constructor(initialKbps: number) {
    this.entries = [{ fromMs: Number.NEGATIVE_INFINITY, kbps: initialKbps }];
  }

  /** When the latest rate took effect. */
  get lastChangeMs(): number {
    return this.entries[this.entries.length - 1]!.fromMs;
  }

  /** The rate in force at `ms`. */
  at(ms: number): number {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.fromMs <= ms) return entry.kbps;
    }
    // Older than what is kept: the oldest known rate is the best guess.
    return this.entries[0]!.kbps;
  }

  /** Notes the rate from `atMs` on (never before the previous change); an unchanged rate adds nothing. */
  record(atMs: number, kbps: number): void {
    const last = this.entries[this.entries.length - 1]!;
    if (last.kbps === kbps) return;
    this.entries.push({ fromMs: Math.max(atMs, last.fromMs), kbps });
    if (this.entries.length > HISTORY_LIMIT) this.entries.shift();
  }
}
