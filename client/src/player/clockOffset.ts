/**
 * The server's clock against the page's, from signaling round trips (NTP's
 * way): a request sent at local t0 and answered at t1 with the server's time
 * s gives offset s - (t0 + t1) / 2, off by at most half the round trip. The
 * sample with the shortest round trip among the recent ones is the one kept:
 * a queued or delayed answer only widens its own bound. Pure.
 */
export interface ClockSample {
  /** Local epoch ms when the request left and when the answer came. */
  sentMs: number;
  receivedMs: number;
  /** The server's epoch ms in its answer. */
  serverMs: number;
}

/** Samples kept: a minute of them at one each 10 s, and the burst at the start. */
const KEPT = 8;

export class ClockOffset {
  private readonly samples: ClockSample[] = [];

  add(s: ClockSample): void {
    if (s.receivedMs < s.sentMs) return;
    this.samples.push(s);
    if (this.samples.length > KEPT) this.samples.shift();
  }

  /** Server time minus local time, ms (add it to a local time to get the server's); null before a sample. */
  get offsetMs(): number | null {
    const best = this.best();
    return best ? best.serverMs - (best.sentMs + best.receivedMs) / 2 : null;
  }

  /** Half the best round trip: how far off the offset may be, ms. */
  get uncertaintyMs(): number | null {
    const best = this.best();
    return best ? (best.receivedMs - best.sentMs) / 2 : null;
  }

  private best(): ClockSample | undefined {
    let best: ClockSample | undefined;
    for (const s of this.samples) if (!best || s.receivedMs - s.sentMs < best.receivedMs - best.sentMs) best = s;
    return best;
  }
}
