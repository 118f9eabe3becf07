/**
 * The simulator's clock and agenda: a binary min-heap of callbacks keyed by
 * (time, insertion order). The insertion order breaks ties, so events at the
 * same instant run first-scheduled-first and a run is deterministic.
 */

interface Entry {
  atMs: number;
  seq: number;
  run: () => void;
}

function before(a: Entry, b: Entry): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

export class EventQueue {
  private readonly heap: Entry[] = [];
  private seq = 0;
  private clock = 0;
  private executed = 0;

  /** Simulated time of the event being run (or of the last one), ms. */
  get nowMs(): number {
    return this.clock;
  }

  /** Events run so far: the simulator's work, for speed reports. */
  get eventsRun(): number {
    return this.executed;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Runs `run` at absolute time atMs; the past is not allowed, since it would break causality. */
  at(atMs: number, run: () => void): void {
    if (!(atMs >= this.clock)) throw new RangeError(`cannot schedule at ${atMs} ms: the clock is at ${this.clock} ms`);
    this.push({ atMs, seq: this.seq++, run });
  }

  /** Runs `run` delayMs from now. */
  after(delayMs: number, run: () => void): void {
    this.at(this.clock + delayMs, run);
  }

  /** Runs events in order until none is left or the next one is later than untilMs; the clock ends at untilMs. */
  runUntil(untilMs: number): void {
    while (this.heap.length > 0 && this.heap[0]!.atMs <= untilMs) {
      const next = this.pop();
      this.clock = next.atMs;
      this.executed++;
      next.run();
    }
    this.clock = Math.max(this.clock, untilMs);
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, h[parent]!)) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= h.length) break;
        const right = left + 1;
        const child = right < h.length && before(h[right]!, h[left]!) ? right : left;
        if (!before(h[child]!, last)) break;
        h[i] = h[child]!;
        i = child;
      }
      h[i] = last;
    }
    return top;
  }
}
