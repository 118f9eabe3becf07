/**
 * The TFRC receiver (RFC 3448 sections 5 and 6): detects losses from
 * sequence numbers, groups them into loss events, keeps the loss-interval
 * history and builds the reports the sender's TfrcController uses.
 * History discounting (RFC 3448 section 5.5) is left out: it only speeds up
 * the fall of p after a long loss-free run, which the open interval already
 * does through the larger of the two means.
 */
import type { ReceiverReportFeedback } from './rateController';
import { TFRC_LOSS_WEIGHTS, averageLossInterval, tfrcLossRateFor } from './tfrc';

/** A packet counts as lost once this many later packets arrived (reordering tolerance). */
const NDUPACK = 3;

interface Missing {
  seq: number;
  /** Send time interpolated between its received neighbours. */
  sentAtMs: number;
  /** Packets received after it. */
  later: number;
}

export interface TfrcReceiverOptions {
  packetBytes: number;
}

export class TfrcReceiver {
  private highestSeq = -1;
  private highestSentAtMs = 0;
  private highestArrivalMs = 0;
  private readonly missing: Missing[] = [];
  /** Closed loss intervals in packets, newest first (at most as many as the weights). */
  private readonly closed: number[] = [];
  /** The current loss event: its first lost packet and when that was sent. */
  private event: Missing | undefined;
  /** Arrivals over the last round trip, for the receive rate at the first loss. */
  private readonly recent: Array<{ atMs: number; bytes: number }> = [];
  private senderRttMs = 0;
  private bytesSinceReport = 0;
  private lastReportMs: number | undefined;

  constructor(private readonly options: TfrcReceiverOptions) {}

  /**
   * One arriving packet, with the sender's RTT estimate it carries. Returns
   * true when it revealed a new loss event: the receiver should report at once.
   */
  onPacket(seq: number, bytes: number, sentAtMs: number, arrivalMs: number, senderRttMs: number): boolean {
    this.senderRttMs = senderRttMs;
    this.bytesSinceReport += bytes;
    this.lastReportMs ??= arrivalMs;
    this.recent.push({ atMs: arrivalMs, bytes });
    while (this.recent.length > 0 && this.recent[0]!.atMs < arrivalMs - Math.max(senderRttMs, 1)) this.recent.shift();
    if (seq <= this.highestSeq) {
      // Late (reordered) packet: it is not missing after all.
      const i = this.missing.findIndex((m) => m.seq === seq);
      if (i >= 0) this.missing.splice(i, 1);
      return false;
    }
    for (let s = this.highestSeq + 1; s < seq; s++) {
      const share = (s - this.highestSeq) / (seq - this.highestSeq);
      this.missing.push({ seq: s, sentAtMs: this.highestSentAtMs + share * (sentAtMs - this.highestSentAtMs), later: 0 });
    }
    for (const m of this.missing) if (m.seq < seq) m.later++;
    this.highestSeq = seq;
    this.highestSentAtMs = sentAtMs;
    this.highestArrivalMs = arrivalMs;
    let newEvent = false;
    while (this.missing.length > 0 && this.missing[0]!.later >= NDUPACK) newEvent = this.lost(this.missing.shift()!) || newEvent;
    return newEvent;
  }

  /** p, or 0 before the first loss event. */
  get lossEventRate(): number {
    if (!this.event) return 0;
    const mean = averageLossInterval([this.highestSeq - this.event.seq + 1, ...this.closed]);
    return mean === undefined ? 0 : Math.min(1, 1 / mean);
  }

  /**
   * The report covering what arrived since the previous one; undefined when
   * nothing arrived since (RFC 3448 section 6.2: no feedback without data,
   * so the sender's no-feedback timer, not a zero receive rate, slows it).
   */
  report(nowMs: number): ReceiverReportFeedback | undefined {
    if (this.bytesSinceReport === 0 || this.lastReportMs === undefined) return undefined;
    const spanMs = Math.max(nowMs - this.lastReportMs, 1);
    const report: ReceiverReportFeedback = {
      kind: 'receiver-report',
      xRecvKbps: (this.bytesSinceReport * 8) / spanMs,
      lossEventRate: this.lossEventRate,
      echoTsMs: this.highestSentAtMs,
      tDelayMs: nowMs - this.highestArrivalMs,
      atMs: nowMs,
    };
    this.bytesSinceReport = 0;
    this.lastReportMs = nowMs;
    return report;
  }

  /** A loss sent more than one RTT after the current event's first loss starts a new event. */
  private lost(m: Missing): boolean {
    if (this.event && m.sentAtMs <= this.event.sentAtMs + this.senderRttMs) return false;
    if (!this.event) this.closed.unshift(this.syntheticInterval());
    else this.closed.unshift(m.seq - this.event.seq);
    if (this.closed.length > TFRC_LOSS_WEIGHTS.length) this.closed.pop();
    this.event = m;
    return true;
  }

  /**
   * RFC 3448 section 6.3.1: before the first loss there is no interval to
   * measure, so the history starts with the interval that would give the
   * rate received over the last round trip.
   */
  private syntheticInterval(): number {
    const spanMs = Math.max(this.senderRttMs, 1);
    const bytes = this.recent.reduce((a, r) => a + r.bytes, 0);
    const xRecvKbps = Math.max((bytes * 8) / spanMs, 1e-3);
    return 1 / tfrcLossRateFor(xRecvKbps, this.options.packetBytes, spanMs);
  }
}
