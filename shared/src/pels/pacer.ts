import { COLORS, type Color } from './color';

/**
 * A sender's pacer, as libwebrtc's: packets leave at a multiple of the
 * sender's target rate instead of a frame's packets all at once, so a
 * keyframe (tens of packets) does not arrive at a bottleneck in one burst and
 * overflow its queue. Packets go out at once while the sender is within its
 * budget (a burst window's worth ahead of the rate), so an ordinary frame is
 * not delayed; the rest wait, green first, then yellow, then red. Nothing is
 * ever dropped here: the packets already carry their sequence numbers, and a
 * gap would read as loss at the receiver.
 *
 * Pure: the time is given, the caller's clock calls `drain` while `backlogBytes` > 0.
 */
export interface PacerSettings {
  /** Pacing rate over the target rate (libwebrtc: 2.5). */
  factor: number;
  /** How far ahead of the rate the sender may be, ms of the pacing rate (libwebrtc's burst interval: 40 ms). */
  burstMs: number;
  /** The queue is drained at least this fast: a backlog never takes longer than this to send (a low target's keyframe). */
  maxQueueMs: number;
  /** Lowest target rate, kb/s (before any measurement). */
  minKbps: number;
}

export const PACER_DEFAULTS: PacerSettings = { factor: 2.5, burstMs: 40, maxQueueMs: 300, minKbps: 300 };

/** How long frames waited in the pacer: from their arrival to their last packet's send. */
export interface PacerDelay {
  frames: number;
  /** Sum over the frames, ms. */
  totalMs: number;
  maxMs: number;
}

interface Queue<P> {
  packets: P[];
  head: number;
  /** The frames in the queue, in order: the queue position just past each frame's last packet and when it arrived. */
  frameEnds: { end: number; atMs: number }[];
  /** Packets taken from the front of `packets` since it was last compacted, to translate frame ends. */
  taken: number;
}

export class Pacer<P extends { readonly length: number }> {
  private readonly queues: Record<Color, Queue<P>> = {
    green: emptyQueue(),
    yellow: emptyQueue(),
    red: emptyQueue(),
  };
  private targetKbps: number;
  /** Bytes sent ahead of the pacing rate; it drains at the rate. */
  private debtBytes = 0;
  private lastMs: number | null = null;
  private queuedBytes = 0;
  /** The rate that sends the backlog within `maxQueueMs`, set as frames arrive, kept until the queue empties, kb/s. */
  private drainKbps = 0;
  readonly delay: PacerDelay = { frames: 0, totalMs: 0, maxMs: 0 };

  constructor(private readonly settings: PacerSettings = PACER_DEFAULTS) {
    if (!(settings.factor >= 1) || !(settings.burstMs >= 0) || !(settings.maxQueueMs > 0) || !(settings.minKbps > 0)) {
      throw new RangeError(`pacer settings out of range: ${JSON.stringify(settings)}`);
    }
    this.targetKbps = settings.minKbps;
  }

  /** The sender's target rate (what its control lets it send), kb/s. */
  setTargetKbps(kbps: number): void {
    if (Number.isFinite(kbps)) this.targetKbps = Math.max(this.settings.minKbps, kbps);
  }

  /** Bytes waiting. */
  get backlogBytes(): number {
    return this.queuedBytes;
  }

  /** The rate packets leave at now, kb/s: the target's multiple, faster when the backlog would otherwise wait past `maxQueueMs`. */
  get pacingKbps(): number {
    return Math.max(this.settings.factor * this.targetKbps, this.drainKbps);
  }

  /** One frame's packets, on one color; what the budget allows is sent at once. */
  send(color: Color, packets: readonly P[], nowMs: number, out: (color: Color, packet: P) => void): void {
    if (packets.length === 0) return;
    const q = this.queues[color];
    for (const p of packets) {
      q.packets.push(p);
      this.queuedBytes += p.length;
    }
    q.frameEnds.push({ end: q.packets.length + q.taken, atMs: nowMs });
    this.drain(nowMs, out);
    this.drainKbps = Math.max(this.drainKbps, (this.queuedBytes * 8) / this.settings.maxQueueMs);
  }

  /** Sends what the budget allows by now, green first. */
  drain(nowMs: number, out: (color: Color, packet: P) => void): void {
    const rateBytesPerMs = this.pacingKbps / 8;
    if (this.lastMs !== null && nowMs > this.lastMs) this.debtBytes = Math.max(0, this.debtBytes - (nowMs - this.lastMs) * rateBytesPerMs);
    this.lastMs = nowMs;
    const allowance = rateBytesPerMs * this.settings.burstMs;
    for (const color of COLORS) {
      const q = this.queues[color];
      while (q.head < q.packets.length) {
        if (this.debtBytes > allowance) return;
        const p = q.packets[q.head++]!;
        this.debtBytes += p.length;
        this.queuedBytes -= p.length;
        out(color, p);
        this.frameSent(q, nowMs);
      }
      // Emptied: start the array afresh rather than let it grow.
      if (q.head > 0) {
        q.taken += q.head;
        q.packets = [];
        q.head = 0;
      }
    }
    this.drainKbps = 0;
  }

  private frameSent(q: Queue<P>, nowMs: number): void {
    const first = q.frameEnds[0];
    if (!first || first.end !== q.head + q.taken) return;
    q.frameEnds.shift();
    const waited = nowMs - first.atMs;
    this.delay.frames++;
    this.delay.totalMs += waited;
    if (waited > this.delay.maxMs) this.delay.maxMs = waited;
  }
}

function emptyQueue<P>(): Queue<P> {
  return { packets: [], head: 0, frameEnds: [], taken: 0 };
}
