/**
 * A bottleneck that shares its link among flows: weighted fair queueing
 * (equal weights, self-clocked virtual time, one shared buffer that drops
 * from the longest queue) or core-stateless fair queueing (one FIFO, each
 * arriving packet dropped with probability max(0, 1 - alpha / r_i), alpha the
 * estimated fair share), either one with or without useless-packet
 * transmission avoidance (UPTA) in front for the flows that carry an
 * intelligibility threshold.
 */
import { ArrivalRate, isUseless, maxMinShare } from '@pels/shared/upta/upta';
import type { EventQueue } from './eventQueue';
import { Fifo } from './fifo';
import { transmissionMs } from './links';

export type FairScheduler = 'wfq' | 'csfq';

export interface FlowPacket {
  flow: number;
  bytes: number;
  seq: number;
  sentAtMs: number;
}

export interface FairBottleneckParams {
  scheduler: FairScheduler;
  capacityKbps: number;
  delayMs: number;
  bufferPackets: number;
  flows: number;
  /** Per flow, its UPTA loss threshold q; undefined: no UPTA at all, or never dropped by it. */
  uptaThresholds?: ReadonlyArray<number | undefined>;
  /** Rate estimator constant K, ms. */
  rateAveragingMs: number;
  /** CSFQ: averaging of the aggregate rates and the congestion interval (K_alpha = K_c), ms. */
  csfqAlphaMs: number;
  random: () => number;
}

interface Queued {
  packet: FlowPacket;
  finish: number;
}

export class FairBottleneck {
  private readonly rates: ArrivalRate[];
  private readonly queues: Fifo<Queued>[];
  private readonly queuedBytes: number[];
  private readonly lastFinish: number[];
  private readonly fifo = new Fifo<Queued>();
  private total = 0;
  private virtualTime = 0;
  private busy = false;
  /** CSFQ state. */
  private alpha: number;
  private readonly arrived: ArrivalRate;
  private readonly accepted: ArrivalRate;
  private congested = false;
  private windowStartMs = 0;
  private maxLabel = 0;
  /** Per flow: packets dropped by UPTA, by the scheduler (buffer or CSFQ). */
  readonly uptaDrops: number[];
  readonly drops: number[];
  /** Per flow: whether UPTA dropped its latest packet, and when that flipped (ms). */
  readonly uptaToggles: number[][];
  private readonly uptaOn: boolean[];

  constructor(
    private readonly events: EventQueue,
    private readonly p: FairBottleneckParams,
    private readonly deliver: (packet: FlowPacket) => void,
  ) {
    const n = p.flows;
    this.rates = Array.from({ length: n }, () => new ArrivalRate(p.rateAveragingMs));
    this.queues = Array.from({ length: n }, () => new Fifo<Queued>());
    this.queuedBytes = new Array<number>(n).fill(0);
    this.lastFinish = new Array<number>(n).fill(0);
    this.uptaDrops = new Array<number>(n).fill(0);
    this.drops = new Array<number>(n).fill(0);
    this.uptaToggles = Array.from({ length: n }, () => []);
    this.uptaOn = new Array<boolean>(n).fill(false);
    this.alpha = p.capacityKbps;
    this.arrived = new ArrivalRate(p.csfqAlphaMs);
    this.accepted = new ArrivalRate(p.csfqAlphaMs);
  }

  receive(packet: FlowPacket): void {
    const now = this.events.nowMs;
    // Measured before any drop: a flow UPTA removes still counts when the share is computed.
    const rate = this.rates[packet.flow]!.add(packet.bytes, now);
    if (this.uptaDrop(packet.flow, rate, now)) {
      this.uptaDrops[packet.flow]!++;
      if (this.p.scheduler === 'csfq') this.csfqAlpha(rate, now, false, packet.bytes);
      return;
    }
    if (this.p.scheduler === 'wfq') this.wfqEnqueue(packet);
    else this.csfqEnqueue(packet, rate, now);
  }

  private uptaDrop(flow: number, rate: number, now: number): boolean {
    const q = this.p.uptaThresholds?.[flow];
    if (q === undefined) return false;
    const share = maxMinShare(this.rates.map((r) => r.at(now)), this.p.capacityKbps);
    const drop = isUseless(rate, share, q);
    if (drop !== this.uptaOn[flow]) {
      this.uptaOn[flow] = drop;
      this.uptaToggles[flow]!.push(now);
    }
    return drop;
  }

  private wfqEnqueue(packet: FlowPacket): void {
    const f = packet.flow;
    if (this.total >= this.p.bufferPackets) {
      // Shared buffer: the longest queue (in bytes, counting the arrival) loses its last packet.
      let longest = f;
      let most = this.queuedBytes[f]! + packet.bytes;
      this.queuedBytes.forEach((b, i) => {
        if (b > most) [longest, most] = [i, b];
      });
      this.drops[longest]!++;
      if (longest === f) return;
      this.dropTail(longest);
    }
    const finish = Math.max(this.virtualTime, this.lastFinish[f]!) + packet.bytes;
    this.lastFinish[f] = finish;
    this.queues[f]!.push({ packet, finish });
    this.queuedBytes[f]! += packet.bytes;
    this.total++;
    this.startIfIdle();
  }

  /** Removes a queue's newest packet (the Fifo has no pop: rebuild it, the buffer is small). */
  private dropTail(flow: number): void {
    const q = this.queues[flow]!;
    const kept: Queued[] = [];
    for (let x = q.shift(); x; x = q.shift()) kept.push(x);
    const gone = kept.pop()!;
    for (const x of kept) q.push(x);
    this.queuedBytes[flow]! -= gone.packet.bytes;
    this.lastFinish[flow] = kept.length ? kept[kept.length - 1]!.finish : this.virtualTime;
    this.total--;
  }

  private csfqEnqueue(packet: FlowPacket, rate: number, now: number): void {
    const dropP = rate > 0 ? Math.max(0, 1 - this.alpha / rate) : 0;
    if (dropP > this.p.random()) {
      this.drops[packet.flow]!++;
      this.csfqAlpha(rate, now, false, packet.bytes);
      return;
    }
    // Accepted means past the probabilistic drop: F above C tells alpha to come down.
    this.csfqAlpha(rate, now, true, packet.bytes);
    if (this.total >= this.p.bufferPackets) {
      this.drops[packet.flow]!++;
      // A full buffer means alpha is too high: cut it by 1%.
      this.alpha *= 0.99;
      return;
    }
    this.fifo.push({ packet, finish: 0 });
    this.total++;
    this.startIfIdle();
  }

  /**
   * CSFQ's fair-share estimate: while the arrival rate A stays above the link
   * for K_c, alpha scales by C / F (F the accepted rate); while it stays
   * below, alpha becomes the largest rate label seen.
   */
  private csfqAlpha(label: number, now: number, accepted: boolean, bytes: number): void {
    const a = this.arrived.add(bytes, now);
    const f = accepted ? this.accepted.add(bytes, now) : this.accepted.at(now);
    if (a >= this.p.capacityKbps) {
      if (!this.congested) {
        this.congested = true;
        this.windowStartMs = now;
      } else if (now - this.windowStartMs > this.p.csfqAlphaMs && f > 0) {
        this.alpha = Math.min(this.p.capacityKbps, (this.alpha * this.p.capacityKbps) / f);
        this.windowStartMs = now;
      }
    } else if (this.congested) {
      this.congested = false;
      this.windowStartMs = now;
      this.maxLabel = 0;
    } else if (now - this.windowStartMs < this.p.csfqAlphaMs) {
      this.maxLabel = Math.max(this.maxLabel, label);
    } else {
      this.alpha = Math.max(this.maxLabel, 1);
      this.windowStartMs = now;
      this.maxLabel = 0;
    }
  }

  private startIfIdle(): void {
    if (this.busy) return;
    const next = this.p.scheduler === 'wfq' ? this.wfqNext() : this.fifo.shift();
    if (!next) return;
    this.busy = true;
    this.total--;
    const doneAt = this.events.nowMs + transmissionMs(next.packet.bytes, this.p.capacityKbps);
    this.events.at(doneAt, () => {
      this.busy = false;
      this.events.after(this.p.delayMs, () => this.deliver(next.packet));
      this.startIfIdle();
    });
  }

  /** The head packet with the smallest finish tag; its tag becomes the virtual time. */
  private wfqNext(): Queued | undefined {
    let best = -1;
    let tag = Number.POSITIVE_INFINITY;
    this.queues.forEach((q, i) => {
      const head = q.peek();
      if (head && head.finish < tag) [best, tag] = [i, head.finish];
    });
    if (best < 0) return undefined;
    const x = this.queues[best]!.shift()!;
    this.queuedBytes[best]! -= x.packet.bytes;
    this.virtualTime = x.finish;
    return x;
  }
}
