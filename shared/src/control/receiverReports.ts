import { COLORS, type Color } from '../pels/color';
import type { FeedbackEvent, LossInterval } from '../pels/feedback';
import type { ColorState, CongestionState } from '../protocol/api';
import { CongestionEstimator, type CongestionParams } from './congestionEstimator';

/**
 * One color stream's counters as the sender sees them: its own packet count
 * and the fields of the latest receiver report on the stream (what mediasoup
 * keeps per consumer, its stats of type outbound-rtp).
 */
export interface StreamStats {
  /** Packets sent so far. */
  packetCount: number;
  /** Cumulative, as in the receiver report. */
  packetsLost: number;
  /** As in the receiver report: 0..255. */
  fractionLost: number;
  /** Interarrival jitter, RTP timestamp units. */
  jitter: number;
  /** From the report's LSR and DLSR, ms. */
  roundTripTime?: number;
}

/** The fields a receiver report sets: a change of these is a new report seen. */
export function reportSignature(s: StreamStats): string {
  return `${s.packetsLost}/${s.fractionLost}/${s.jitter}/${s.roundTripTime ?? ''}`;
}

/** How often a sender reads its streams' stats: a report is seen within this long of its arrival. */
export const STATS_POLL_MS = 250;

/**
 * With one stream silent, step anyway after this long on the reports that
 * came. The player sends each stream's reports on a timer of its own, about a
 * second randomized by 0.5-1.5, so two streams' reports can be 1.5 s apart on
 * a live path; at 1500 ms a busy receiver's late report counted a whole
 * stream lost (steps reading 100% enhancement loss on an open link).
 */
const MAX_WAIT_MS = 2500;

/**
 * No new report on any stream for this long: the way back from the player is
 * down as well (a link down or a network change), not a queue full on the way
 * to it, which leaves the player's reports coming (each stream's about every
 * second). What went out meanwhile says nothing of the link's rate: the first
 * report of each stream after such a gap starts its counts afresh instead of
 * stepping on the packets lost in it. Cut to the floor for a 3 s link down, a
 * viewer climbed back for 10 s and more on the base layer alone (the soak).
 */
export const OUTAGE_MS = 3000;

interface PerColor {
  /** The latest report's fields with its RTT: a change is a report seen. */
  signature: string;
  atReport: { packetCount: number; packetsLost: number };
  latest: StreamStats | null;
  recentLoss: number | null;
  /** Intervals reported since the last control step. */
  pending: LossInterval | null;
  packetCountAtStep: number;
  /** Its next report follows an outage: its counts start afresh. */
  afterOutage: boolean;
}

/**
 * Turns the per-stream RTCP statistics, polled, into the PELS feedback
 * events. The counters change when a receiver report arrives, so a change of
 * the report fields is a new report (the epoch). Each report
 * interval is used once. A control step waits until every enhancement stream
 * that carried packets has reported (or MAX_WAIT_MS), then takes p as the
 * congestion in the pooled loss of yellow and red, like the paper's
 * enhancement-layer loss, with the wire's loss taken out
 * (CongestionEstimator), and green's own when green reported. With no enhancement packets in
 * flight (rate at the base floor) the green reports drive the steps, so MKC
 * can climb again.
 *
 * A receiver reports only on streams it heard from (RFC 3550), so a stream
 * whose packets were all dropped (a red queue starved at the bottleneck)
 * sends no report at all: when a stream that carried packets is still silent
 * after MAX_WAIT_MS, its packets since its last report count as lost. A
 * receiver that heard the stream before keeps reporting it with its last
 * counters, which reads as no loss; that is not counted as loss here, because
 * a loss-free stream whose jitter holds still reports exactly the same (the
 * lab's open paths do), and the report has nothing (no highest sequence
 * number in mediasoup's stats) that tells the two apart. Green's floor below
 * covers the case that matters: a starving link drops green too.
 *
 * The network serves green first, so green's congestion is a floor for p: a lower
 * enhancement figure only means its losses are not reported yet (a receiver
 * counts a lost packet once a later one arrives, and a lower-priority queue
 * holds packets long), and stepping on it would let the rate climb while the
 * base layer is being dropped.
 */
export class ReceiverReportTracker {
  private readonly colors: Record<Color, PerColor>;
  private epoch = 0;
  private firstPendingAt: number | null = null;
  private rttMs: number | null = null;
  private lastReportAt: number | null = null;
  private readonly estimator: CongestionEstimator;

  constructor(
    private readonly origin: string,
    congestion?: CongestionParams,
  ) {
    this.estimator = new CongestionEstimator(congestion);
    const fresh = (): PerColor => ({ signature: '', atReport: { packetCount: 0, packetsLost: 0 }, latest: null, recentLoss: null, pending: null, packetCountAtStep: 0, afterOutage: false });
    this.colors = { green: fresh(), yellow: fresh(), red: fresh() };
  }

  /** Feeds one poll of the streams' stats (none: only the time passes); returns the feedback event to step on, if any. */
  update(samples: Partial<Record<Color, StreamStats>>, nowMs: number): FeedbackEvent | null {
    for (const color of COLORS) {
      const s = samples[color];
      if (!s) continue;
      const c = this.colors[color];
      c.latest = s;
      const signature = reportSignature(s);
      if (signature === c.signature || s.packetCount === 0) continue;
      c.signature = signature;
      if (this.lastReportAt !== null && nowMs - this.lastReportAt > OUTAGE_MS) this.outageEnded();
      this.lastReportAt = nowMs;
      if (c.afterOutage) {
        c.afterOutage = false;
        c.atReport = { packetCount: s.packetCount, packetsLost: s.packetsLost };
        c.packetCountAtStep = s.packetCount;
        c.recentLoss = null;
        continue;
      }
      const interval = { expected: s.packetCount - c.atReport.packetCount, lost: s.packetsLost - c.atReport.packetsLost };
      c.atReport = { packetCount: s.packetCount, packetsLost: s.packetsLost };
      c.recentLoss = s.fractionLost / 256;
      c.pending = c.pending ? { expected: c.pending.expected + interval.expected, lost: c.pending.lost + interval.lost } : interval;
      this.firstPendingAt ??= nowMs;
      if (s.roundTripTime !== undefined && s.roundTripTime > 0) this.rttMs = s.roundTripTime;
    }
    return this.maybeStep(nowMs);
  }

  get rtt(): number | null {
    return this.rttMs;
  }

  /** How the latest step's loss was read (congestion or wire loss). */
  get congestion(): CongestionState {
    return this.estimator.state;
  }

  /**
   * A report has come and the step waits for the other streams' (or for
   * MAX_WAIT_MS): each poll's packet counts matter until it steps. Otherwise
   * a poll with no new report changes nothing the control acts on.
   */
  get awaitingReports(): boolean {
    return this.firstPendingAt !== null;
  }

  colorState(color: Color): ColorState {
    const c = this.colors[color];
    const sent = c.latest?.packetCount ?? 0;
    const lost = Math.max(0, c.latest?.packetsLost ?? 0);
    return { packetsSent: sent, packetsLost: lost, lossFraction: sent > 0 ? Math.min(1, lost / sent) : 0, recentLoss: c.recentLoss };
  }

  /** Reports came again after an outage: each stream's next one (this one included) starts its counts afresh, and none owes one for what went out in it. */
  private outageEnded(): void {
    for (const k of COLORS) {
      const c = this.colors[k];
      c.afterOutage = true;
      c.pending = null;
      c.atReport = { ...c.atReport, packetCount: c.latest?.packetCount ?? c.atReport.packetCount };
      c.packetCountAtStep = c.latest?.packetCount ?? 0;
    }
    this.firstPendingAt = null;
  }

  /** A silent stream: what it carried since its last report is counted lost, and not again when a report comes. */
  private assumeLost(color: Color): void {
    const c = this.colors[color];
    const sent = (c.latest?.packetCount ?? 0) - c.atReport.packetCount;
    if (sent <= 0) return;
    c.pending = { expected: sent, lost: sent };
    c.atReport = { packetCount: c.atReport.packetCount + sent, packetsLost: c.atReport.packetsLost + sent };
  }

  private maybeStep(nowMs: number): FeedbackEvent | null {
    if (this.firstPendingAt === null) return null;
    // Streams that carried packets since the last step owe a report.
    const owing = (['yellow', 'red'] as const).filter((k) => (this.colors[k].latest?.packetCount ?? 0) > this.colors[k].packetCountAtStep);
    const enhancement = owing.length > 0;
    const ready = enhancement
      ? owing.every((k) => this.colors[k].pending !== null)
      : this.colors.green.pending !== null;
    if (!ready && nowMs - this.firstPendingAt < MAX_WAIT_MS) return null;
    if (enhancement) for (const k of owing) if (this.colors[k].pending === null) this.assumeLost(k);
    const intervals: Partial<Record<Color, LossInterval>> = {};
    for (const k of enhancement ? COLORS : (['green'] as const)) {
      const pending = this.colors[k].pending;
      if (pending) intervals[k] = pending;
    }
    const rtts = COLORS.filter((k) => this.colors[k].pending !== null).map((k) => this.colors[k].latest?.roundTripTime ?? 0);
    const rttMs = Math.max(0, ...rtts);
    for (const k of COLORS) {
      const c = this.colors[k];
      c.pending = null;
      c.packetCountAtStep = c.latest?.packetCount ?? 0;
    }
    this.firstPendingAt = null;
    const estimate = this.estimator.update({ atMs: nowMs, intervals, ...(rttMs > 0 ? { rttMs } : {}) });
    if (!estimate) return null;
    return {
      kind: 'rtcp',
      epoch: ++this.epoch,
      lossFraction: estimate.congestion ?? 0,
      atMs: nowMs,
      origin: this.origin,
      // Any of it ends MKC's start-up: wire loss on green does not.
      ...(intervals.green ? { baseLossFraction: estimate.baseCongestion } : {}),
      ...(rttMs > 0 ? { rttMs } : {}),
    };
  }
}
