import { COLORS, type Color } from '@pels/shared/pels/color';
import { pooledLoss, type FeedbackEvent, type LossInterval } from '@pels/shared/pels/feedback';
import type { EventQueue } from './eventQueue';
import type { Packet } from './packet';
import { Bins } from './stats';

/**
 * Where a source's feedback comes from, as in the product:
 * 'router': the bottleneck's label (eq. 11), echoed back per packet;
 * 'rtcp': enhancement-layer loss the receiver counts per report interval,
 * like the server's path from RTCP receiver reports.
 */
export type FeedbackMode = 'router' | 'rtcp';

export interface ReceiverParams {
  mode: FeedbackMode;
  /** Names the reports' epochs (like an SSRC), so they compare only with each other. */
  origin: string;
  /** Receiver to source: the reverse path, no queueing (feedback is small). */
  returnDelayMs: number;
  /** The router's T: the label of a packet measured traffic sent up to T before it. */
  routerIntervalMs: number;
  reportIntervalMs: number;
  binMs: number;
}

/** One color's RTCP-like counters: highest sequence number and packets received. */
class ColorCounter {
  highestSeq = -1;
  received = 0;
  private reportedSeq = -1;
  private reportedReceived = 0;

  add(seq: number): void {
    this.received++;
    this.highestSeq = Math.max(this.highestSeq, seq);
  }

  /** Expected and lost since the last report (RFC 3550 style: expected from the highest sequence number). */
  interval(): LossInterval {
    const expected = this.highestSeq - this.reportedSeq;
    const lost = expected - (this.received - this.reportedReceived);
    this.reportedSeq = this.highestSeq;
    this.reportedReceived = this.received;
    return { expected, lost };
  }
}

/** One PELS flow's receiver: counts what arrives and sends the feedback back to the source. */
export class Receiver {
  readonly goodputBytes: Bins;
  private readonly counters: Record<Color, ColorCounter> = { green: new ColorCounter(), yellow: new ColorCounter(), red: new ColorCounter() };
  private echoedEpoch = Number.NEGATIVE_INFINITY;
  private reports = 0;
  /** Send times of the first and last packet received since the last report. */
  private window: { first: number; last: number } | undefined;

  /** toSource: where feedback arrives at the source, after the return delay. */
  constructor(
    private readonly events: EventQueue,
    private readonly toSource: (ev: FeedbackEvent) => void,
    private readonly params: ReceiverParams,
  ) {
    this.goodputBytes = new Bins(params.binMs);
  }

  start(): void {
    if (this.params.mode === 'rtcp') this.events.after(this.params.reportIntervalMs, () => this.report());
  }

  received(color: Color): number {
    return this.counters[color].received;
  }

  receive(packet: Packet): void {
    if (packet.cls === 'internet') return;
    this.counters[packet.cls].add(packet.seq);
    this.goodputBytes.add(this.events.nowMs, packet.bytes);
    this.window = { first: this.window?.first ?? packet.sentAtMs, last: packet.sentAtMs };
    if (this.params.mode === 'router') this.echo(packet);
  }

  /**
   * Router mode: every packet carries the label, but the source acts on each
   * epoch once, so only a label newer than the last one echoed needs the trip
   * back (the reverse path keeps order, so the source sees the same events).
   */
  private echo(packet: Packet): void {
    const label = packet.label;
    if (!label || label.epoch <= this.echoedEpoch) return;
    this.echoedEpoch = label.epoch;
    // The label measured the interval T before the packet reached the router; that traffic left the source within T before this packet did.
    const sentAtMs = packet.sentAtMs - this.params.routerIntervalMs;
    this.events.after(this.params.returnDelayMs, () =>
      this.toSource({ kind: 'router', epoch: label.epoch, lossFraction: label.p, atMs: this.events.nowMs, origin: label.routerId, sentAtMs }),
    );
  }

  /**
   * RTCP mode, like the server: p is the pooled loss of yellow and red over
   * the interval; with no enhancement packets in it, green's, so MKC can climb
   * from the base rate. Green's own loss goes along when green was sent.
   */
  private report(): void {
    const intervals = Object.fromEntries(COLORS.map((c) => [c, this.counters[c].interval()])) as Record<Color, LossInterval>;
    const p = pooledLoss([intervals.yellow, intervals.red]) ?? pooledLoss([intervals.green]);
    const baseLoss = pooledLoss([intervals.green]);
    const window = this.window;
    this.window = undefined;
    if (p !== undefined && window) {
      const epoch = ++this.reports;
      const sentAtMs = (window.first + window.last) / 2;
      this.events.after(this.params.returnDelayMs, () =>
        this.toSource({ kind: 'rtcp', epoch, lossFraction: p, atMs: this.events.nowMs, origin: this.params.origin, sentAtMs, ...(baseLoss !== undefined ? { baseLossFraction: baseLoss } : {}) }),
      );
    }
    this.events.after(this.params.reportIntervalMs, () => this.report());
  }
}
