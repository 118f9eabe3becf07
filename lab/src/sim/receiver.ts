import { COLORS, type Color } from '@pels/shared/pels/color';
import type { BottleneckFeedbackInput } from '@pels/shared/control/input';
import type { EventQueue } from './eventQueue';
import type { Packet } from './packet';
import { Bins } from './stats';

/**
 * Where a source's feedback comes from, as in the product:
 * 'router': the bottleneck's label (eq. 11), echoed back per packet;
 * 'rtcp': RTCP receiver reports on each color stream, which the source's
 * control core turns into loss as the server's does.
 */
export type FeedbackSource = 'router' | 'rtcp';

export interface ReceiverParams {
  feedback: FeedbackSource;
  /** Receiver to source: the reverse path, no queueing (feedback is small). */
  returnDelayMs: number;
  /** The router's T: the label of a packet measured traffic sent up to T before it. */
  routerIntervalMs: number;
  reportIntervalMs: number;
  binMs: number;
}

/** One report block of an RTCP receiver report (RFC 3550 section 6.4.1), with what the sender needs for a round trip. */
export interface ReportBlock {
  /** Cumulative: expected (from the highest sequence number) less received. */
  packetsLost: number;
  /** Of the packets expected since the last report, 0..255. */
  fractionLost: number;
  /** Interarrival jitter, 90 kHz RTP timestamp units. */
  jitter: number;
  /** The newest packet's send time and how long it was held before the report (the roles of LSR and DLSR). */
  echoSentAtMs: number;
  heldMs: number;
}

export type ReceiverReport = Partial<Record<Color, ReportBlock>>;

/** RTP's video clock, for the jitter's units. */
const TICKS_PER_MS = 90;

/** One color stream's reception, counted as an RTP receiver does. */
class StreamReception {
  highestSeq = -1;
  received = 0;
  private jitterMs = 0;
  private lastTransitMs: number | undefined;
  private newest = { sentAtMs: 0, arrivalMs: 0 };
  private reported = { expected: 0, received: 0 };

  add(seq: number, sentAtMs: number, arrivalMs: number): void {
    this.received++;
    this.highestSeq = Math.max(this.highestSeq, seq);
    const transit = arrivalMs - sentAtMs;
    // RFC 3550 A.8: J += (|D| - J) / 16.
    if (this.lastTransitMs !== undefined) this.jitterMs += (Math.abs(transit - this.lastTransitMs) - this.jitterMs) / 16;
    this.lastTransitMs = transit;
    this.newest = { sentAtMs, arrivalMs };
  }

  /** The block of a report at nowMs, or undefined when nothing arrived since the last one (RFC 3550 reports only on sources heard from). */
  block(nowMs: number): ReportBlock | undefined {
    if (this.received === this.reported.received) return undefined;
    const expected = this.highestSeq + 1;
    const expectedInterval = expected - this.reported.expected;
    const lostInterval = expectedInterval - (this.received - this.reported.received);
    this.reported = { expected, received: this.received };
    return {
      packetsLost: expected - this.received,
      fractionLost: expectedInterval > 0 && lostInterval > 0 ? Math.floor((lostInterval * 256) / expectedInterval) : 0,
      jitter: Math.floor(this.jitterMs * TICKS_PER_MS),
      echoSentAtMs: this.newest.sentAtMs,
      heldMs: nowMs - this.newest.arrivalMs,
    };
  }
}

/** What a receiver sends back to its source, after the return delay. */
export interface ReceiverFeedback {
  router(input: BottleneckFeedbackInput): void;
  report(report: ReceiverReport): void;
}

/** One PELS flow's receiver: counts what arrives and sends the feedback back to the source. */
export class Receiver {
  readonly goodputBytes: Bins;
  private readonly streams: Record<Color, StreamReception> = { green: new StreamReception(), yellow: new StreamReception(), red: new StreamReception() };
  private echoedEpoch = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly events: EventQueue,
    private readonly toSource: ReceiverFeedback,
    private readonly params: ReceiverParams,
  ) {
    this.goodputBytes = new Bins(params.binMs);
  }

  start(): void {
    if (this.params.feedback === 'rtcp') this.events.after(this.params.reportIntervalMs, () => this.report());
  }

  received(color: Color): number {
    return this.streams[color].received;
  }

  receive(packet: Packet): void {
    if (packet.cls === 'internet') return;
    this.streams[packet.cls].add(packet.seq, packet.sentAtMs, this.events.nowMs);
    this.goodputBytes.add(this.events.nowMs, packet.bytes);
    if (this.params.feedback === 'router') this.echo(packet);
  }

  /**
   * Bottleneck mode: every packet carries the label, but the source acts on each
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
      this.toSource.router({ kind: 'router-feedback', epoch: label.epoch, lossFraction: label.p, atMs: this.events.nowMs, origin: label.routerId, sentAtMs }),
    );
  }

  /** RTCP mode: a receiver report on every stream heard from since the last one. */
  private report(): void {
    const report: ReceiverReport = {};
    for (const color of COLORS) {
      const block = this.streams[color].block(this.events.nowMs);
      if (block) report[color] = block;
    }
    if (Object.keys(report).length > 0) this.events.after(this.params.returnDelayMs, () => this.toSource.report(report));
    this.events.after(this.params.reportIntervalMs, () => this.report());
  }
}
