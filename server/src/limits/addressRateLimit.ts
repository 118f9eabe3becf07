import { addressKey } from './socketsPerAddress';

export interface RateLimitSettings {
  /** Attempts an address may make at once. */
  burst: number;
  /** Attempts it gets back per minute, evenly. */
  perMinute: number;
}

/** Addresses remembered at most; past it, those that would be full anyway go first, then the least recently seen. */
const MAX_ADDRESSES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per client address (IPv4 address or IPv6 /64, as
 * socketsPerAddress counts them): `burst` attempts at once, `perMinute` more
 * each minute. Pure but for the clock it is given; memory is bounded.
 */
export class AddressRateLimit {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the address has an attempt left now; does not use it (e.g. only failures are charged). */
  allows(address: string | undefined): boolean {
    return this.tokens(addressKey(address)) >= 1;
  }

  /** Uses one attempt; false (nothing used) when the address has none left. */
  take(address: string | undefined): boolean {
    const key = addressKey(address);
    const tokens = this.tokens(key);
    if (tokens < 1) return false;
    this.buckets.delete(key); // re-inserted last: the map's order is the least recently seen first
    this.buckets.set(key, { tokens: tokens - 1, at: this.now() });
    if (this.buckets.size > MAX_ADDRESSES) this.prune();
    return true;
  }

  /** Whole seconds until the address has an attempt again (0 when it has one). */
  retryAfterS(address: string | undefined): number {
    const missing = 1 - this.tokens(addressKey(address));
    return missing <= 0 ? 0 : Math.ceil((missing * 60) / this.settings.perMinute);
  }

  private tokens(key: string): number {
    const b = this.buckets.get(key);
    if (!b) return this.settings.burst;
    return Math.min(this.settings.burst, b.tokens + ((this.now() - b.at) / 60_000) * this.settings.perMinute);
  }

  private prune(): void {
    for (const key of this.buckets.keys()) if (this.tokens(key) >= this.settings.burst) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= MAX_ADDRESSES) break;
      this.buckets.delete(key);
    }
  }
}
