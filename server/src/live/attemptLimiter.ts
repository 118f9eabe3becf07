/**
 * Publish attempts per address: a token bucket of `perMinute` tokens each,
 * refilled evenly over a minute; an attempt takes one, and an address whose
 * bucket is empty is refused until it refills. Keys cannot be guessed, but the
 * limit keeps a scan (or a publisher stuck in a reconnect loop) from starting
 * an FFmpeg per attempt. Pure: the caller gives the time.
 */
export class AttemptLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** `maxAddresses`: addresses remembered at most; past it, full buckets are forgotten first (they would start full anyway). */
  constructor(
    private readonly perMinute: number,
    private readonly maxAddresses = 10_000,
  ) {
    if (!(perMinute >= 1)) throw new RangeError(`perMinute must be at least 1, got ${perMinute}`);
  }

  /** Takes an attempt for `address` at `nowMs`; false: refused. */
  take(address: string, nowMs: number): boolean {
    const b = this.buckets.get(address);
    const tokens = b ? this.refilled(b, nowMs) : this.perMinute;
    if (tokens < 1) {
      this.buckets.set(address, { tokens, at: nowMs });
      return false;
    }
    if (!b && this.buckets.size >= this.maxAddresses) this.forgetFull(nowMs);
    this.buckets.set(address, { tokens: tokens - 1, at: nowMs });
    return true;
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(b: { tokens: number; at: number }, nowMs: number): number {
    return Math.min(this.perMinute, b.tokens + (Math.max(0, nowMs - b.at) * this.perMinute) / 60_000);
  }

  private forgetFull(nowMs: number): void {
    for (const [address, b] of this.buckets) if (this.refilled(b, nowMs) >= this.perMinute) this.buckets.delete(address);
    // Every one is still refilling: the oldest goes (Maps keep insertion order).
    if (this.buckets.size >= this.maxAddresses) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
