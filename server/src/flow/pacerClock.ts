/**
 * The one ticker every paced sender of a stream shares: a sender with packets
 * waiting asks to be called back, and the ticker runs only while one waits
 * (a timer per viewer would be hundreds of timers for the same instants).
 */
export interface Drainable {
  /** Sends what is due by `nowMs`; true while packets still wait. */
  drain(nowMs: number): boolean;
}

/** 5 ms, as libwebrtc's pacer: at 2.5 times a few hundred kb/s, a packet or two a tick. */
export const PACER_TICK_MS = 5;

export class PacerClock {
  private readonly waiting = new Set<Drainable>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly tickMs = PACER_TICK_MS) {}

  /** The pacers' time, ms: monotonic, so a wall-clock step neither stalls nor bursts them. */
  now(): number {
    return performance.now();
  }

  /** `sender` has packets waiting: drain it each tick until it has none. */
  wait(sender: Drainable): void {
    this.waiting.add(sender);
    this.timer ??= setInterval(() => this.tick(), this.tickMs);
  }

  /** `sender` is closed: it is not called again. */
  forget(sender: Drainable): void {
    this.waiting.delete(sender);
    if (this.waiting.size === 0) this.stop();
  }

  close(): void {
    this.waiting.clear();
    this.stop();
  }

  private tick(): void {
    const now = this.now();
    for (const s of this.waiting) {
      try {
        if (!s.drain(now)) this.waiting.delete(s);
      } catch {
        // Its worker's channel closed under it (the worker died; its viewers are being closed): nothing it holds can go.
        this.waiting.delete(s);
      }
    }
    if (this.waiting.size === 0) this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
