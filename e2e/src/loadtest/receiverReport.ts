/**
 * What a load test makes of the synthetic receivers' report (its schema:
 * shared/src/protocol/syntheticReceivers.ts): per-viewer delivery, join times, loss and jitter per color.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { FrameDelivery, ReceiverResult, ReceiversReport } from '@pels/shared/protocol/syntheticReceivers';
import { mean, quantile, round } from '../testbed/metrics';

export type { ColorCounts, FrameDelivery, LayerCounts, ReceiverResult, ReceiversReport } from '@pels/shared/protocol/syntheticReceivers';

/** A viewer's share of frames received; one that failed to join, or was sent nothing in the hold, got none. */
function share(r: ReceiverResult, d: FrameDelivery): number {
  return r.joined && d.sent > 0 ? Math.min(1, d.received / d.sent) : 0;
}

export interface Delivery {
  /**
   * Per viewer green (base layer) frames received complete / sent, sent as the
   * TL0PICIDX numbering counts them (lost whole included); over all viewers, a
   * failed join counting 0.
   */
  greenMin: number | null;
  greenP5: number | null;
  greenMean: number | null;
  /** Share of the viewers that received at least 99% of their green frames. */
  viewersWithGreen99: number | null;
  /**
   * Per viewer all frames (every layer) received complete / seen (complete or
   * not), as green; a frame lost whole shows in its color's loss instead.
   */
  allMin: number | null;
  allP5: number | null;
  allMean: number | null;
  /**
   * Base frames sent a second to a joined viewer, on average: a quarter of the
   * source's frame rate (layers 0,2,1,2), lower when the machine starves the ingest.
   */
  greenFramesPerSecond: number | null;
  /** Totals over the viewers. */
  greenFrames: FrameDelivery;
  allFrames: FrameDelivery;
}

export interface ReceiversSummary {
  viewers: number;
  joined: number;
  failedJoins: number;
  /** Distinct failure reasons with their counts. */
  failures: Record<string, number>;
  delivery: Delivery;
  joinMs: { p50: number | null; p95: number | null; max: number | null };
  /** Packets lost after repair / expected, over all viewers, per color; null when the color carried nothing. */
  lossPerColor: Record<Color, number | null>;
  /** RFC 3550 interarrival jitter at the end of the hold: median and 95th percentile over the viewers. */
  jitterMs: Record<Color, { p50: number | null; p95: number | null }>;
  /** NACKs the receivers sent, per color stream; NACKs the server counted (all colors). */
  nacks: { sent: Record<Color, number>; serverReceived: number };
  /** Median RTT the server measured from the receiver reports; fewest controller steps a viewer took. */
  rttMsP50: number | null;
  feedbackStepsMin: number | null;
  /** Mean MKC rate the server held for the viewers at the end, kb/s. */
  rateKbpsMean: number | null;
  /** `--rx rlm`: over the joined receivers, the colors asked for (mean over the hold, then over receivers), layers held at the end, joins, drops and refused requests. */
  rlm?: { meanColors: number | null; subscriptionAtEnd: Record<string, number>; adds: number; drops: number; setColorsFailed: number };
}

export function summarizeReceivers(report: ReceiversReport): ReceiversSummary {
  const rs = report.receivers;
  const joined = rs.filter((r) => r.joined);
  const failures: Record<string, number> = {};
  for (const r of rs) if (!r.joined) failures[r.error ?? 'unknown'] = (failures[r.error ?? 'unknown'] ?? 0) + 1;
  const green = rs.map((r) => share(r, r.green));
  const all = rs.map((r) => share(r, r.all));
  const sum = (f: (r: ReceiverResult) => number) => joined.reduce((n, r) => n + f(r), 0);
  const joinMs = joined.map((r) => r.joinMs!).filter((x) => x !== null);
  const servers = joined.flatMap((r) => (r.server ? [r.server] : []));
  const perColor = <T>(f: (c: Color) => T) => Object.fromEntries(COLORS.map((c) => [c, f(c)])) as Record<Color, T>;
  const r3 = (x: number | null) => round(x, 3);
  const r4 = (x: number | null) => round(x, 4);
  return {
    viewers: report.viewers,
    joined: joined.length,
    failedJoins: rs.length - joined.length,
    failures,
    delivery: {
      greenMin: r4(quantile(green, 0)),
      greenP5: r4(quantile(green, 0.05)),
      greenMean: r4(mean(green)),
      viewersWithGreen99: r4(green.length ? green.filter((x) => x >= 0.99).length / green.length : null),
      allMin: r4(quantile(all, 0)),
      allP5: r4(quantile(all, 0.05)),
      allMean: r4(mean(all)),
      greenFramesPerSecond: round(joined.length ? sum((r) => r.green.sent) / joined.length / report.holdSeconds : null, 2),
      greenFrames: { received: sum((r) => r.green.received), sent: sum((r) => r.green.sent) },
      allFrames: { received: sum((r) => r.all.received), sent: sum((r) => r.all.sent) },
    },
    joinMs: { p50: round(quantile(joinMs, 0.5), 0), p95: round(quantile(joinMs, 0.95), 0), max: round(quantile(joinMs, 1), 0) },
    lossPerColor: perColor((c) => {
      const expected = sum((r) => r.colors[c]?.expected ?? 0);
      return expected > 0 ? r4(sum((r) => r.colors[c]?.lost ?? 0) / expected) : null;
    }),
    jitterMs: perColor((c) => {
      const xs = joined.flatMap((r) => (r.colors[c]?.packets ? [r.colors[c]!.jitterMs] : []));
      return { p50: r3(quantile(xs, 0.5)), p95: r3(quantile(xs, 0.95)) };
    }),
    nacks: { sent: perColor((c) => sum((r) => r.nacksSent[c] ?? 0)), serverReceived: servers.reduce((n, s) => n + s.nacksReceived, 0) },
    rttMsP50: r3(quantile(servers.flatMap((s) => (s.rttMs === null ? [] : [s.rttMs])), 0.5)),
    feedbackStepsMin: quantile(servers.map((s) => s.feedbackSteps), 0),
    rateKbpsMean: round(mean(servers.map((s) => s.rateKbps)), 1),
    ...rlmSummary(joined),
  };
}

function rlmSummary(joined: readonly ReceiverResult[]): Pick<ReceiversSummary, 'rlm'> {
  const rlm = joined.flatMap((r) => (r.rlm ? [r.rlm] : []));
  if (!rlm.length) return {};
  const subscriptionAtEnd: Record<string, number> = {};
  for (const x of rlm) subscriptionAtEnd[x.subscription] = (subscriptionAtEnd[x.subscription] ?? 0) + 1;
  const total = (f: (x: (typeof rlm)[number]) => number) => rlm.reduce((n, x) => n + f(x), 0);
  return {
    rlm: {
      meanColors: round(mean(rlm.map((x) => x.meanColors)), 2),
      subscriptionAtEnd,
      adds: total((x) => x.adds),
      drops: total((x) => x.drops),
      setColorsFailed: total((x) => x.setColorsFailed),
    },
  };
}
