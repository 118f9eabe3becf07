/** Summary statistics for the testbed's per-second samples. */
import type { QualitySample } from '@pels/shared/protocol/playerHook';
import type { CongestionState, LossDiagnosis, ViewerState } from '@pels/shared/protocol/api';
import { COLORS, type Color } from '@pels/shared/pels/color';

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Jain's fairness index: 1 when all equal, 1/n when one takes everything. */
export function jainIndex(xs: readonly number[]): number | null {
  if (!xs.length) return null;
  const sum = xs.reduce((a, b) => a + b, 0);
  const sq = xs.reduce((a, b) => a + b * b, 0);
  return sq > 0 ? (sum * sum) / (xs.length * sq) : null;
}

/** Loss over an interval from two cumulative (sent, lost) readings; null when nothing was sent. */
export function intervalLoss(a: { packetsSent: number; packetsLost: number }, b: { packetsSent: number; packetsLost: number }): number | null {
  const sent = b.packetsSent - a.packetsSent;
  return sent > 0 ? Math.max(0, Math.min(1, (b.packetsLost - a.packetsLost) / sent)) : null;
}

export const round = (x: number | null, digits = 3): number | null => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** A displayed frame period as the player's window.pels.qualitySamples() gives it: when it began, its PSNR. */
export type DisplaySample = Pick<QualitySample, 't' | 'psnr'>;

/**
 * PSNR of the frames displayed after fromMs: mean and 5th percentile of the
 * scored ones, and the share scored. A frame period is unscored when the frame
 * on screen is older than the server's table reaches (8 frames: a long freeze),
 * so a low scored share means the mean describes only the moments the video moved.
 */
export function psnrSummary(samples: readonly DisplaySample[], fromMs: number): { mean: number | null; p5: number | null; scoredShare: number | null } {
  const periods = samples.filter((x) => x.t >= fromMs);
  const xs = periods.filter((x) => x.psnr !== null).map((x) => x.psnr!).sort((a, b) => a - b);
  if (!xs.length) return { mean: null, p5: null, scoredShare: periods.length ? 0 : null };
  return { mean: round(mean(xs), 2), p5: round(xs[Math.floor(0.05 * (xs.length - 1))]!, 2), scoredShare: round(xs.length / periods.length, 3) };
}

/** The q-quantile (0..1) by the nearest rank at or below it; null for no values. */
export function quantile(xs: readonly number[], q: number): number | null {
  if (!xs.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

export function median(xs: readonly number[]): number | null {
  if (!xs.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A viewer's sent rate at one instant (ms since the epoch). */
export interface RatePoint {
  atMs: number;
  sentKbps: number;
}

/**
 * How long after startMs the sent rate first reached `share` of the
 * stream's full rate, ms; null if it never did. Points come in time order;
 * the answer is the first such point's time, so its resolution is the
 * points' spacing.
 */
export function timeToFullRateMs(points: readonly RatePoint[], startMs: number, fullKbps: number, share = 0.9): number | null {
  const hit = points.find((p) => p.sentKbps >= share * fullKbps);
  return hit && fullKbps > 0 ? Math.max(0, hit.atMs - startMs) : null;
}

/** A viewer state's congestion reading; null from a server that gives none (one from before the congestion estimator). */
export function congestionOf(v: ViewerState): CongestionState | null {
  return (v as Partial<ViewerState>).congestion ?? null;
}

/** The controller's reading of a viewer's loss over some samples. */
export interface CongestionSummary {
  /** Means of the estimates the samples have (0..1); null: none had one. */
  congestion: number | null;
  wireLoss: number | null;
  /** Share of the samples with each diagnosis. */
  diagnosis: Record<LossDiagnosis, number>;
  samples: number;
}

/** Means and diagnosis shares over the samples that have a reading; null when none has. */
export function congestionSummary(xs: readonly (CongestionState | null)[]): CongestionSummary | null {
  const states = xs.filter((x): x is CongestionState => x !== null);
  if (!states.length) return null;
  const known = (pick: (c: CongestionState) => number | null) => states.map(pick).filter((x): x is number => x !== null);
  const counts: Record<LossDiagnosis, number> = { clear: 0, 'wire-loss': 0, congestion: 0 };
  for (const c of states) counts[c.diagnosis]++;
  const share = (d: LossDiagnosis): number => Math.round((1000 * counts[d]) / states.length) / 1000;
  return {
    congestion: round(mean(known((c) => c.congestion)), 4),
    wireLoss: round(mean(known((c) => c.wireLoss)), 4),
    diagnosis: { clear: share('clear'), 'wire-loss': share('wire-loss'), congestion: share('congestion') },
    samples: states.length,
  };
}

/** The server's own counters over a run: packets its channel writers dropped, keyframes its viewers' requests forced. */
export interface ServerCounters {
  channelDropped: Record<Color, number>;
  keyframesForced: number;
}

/** The counters the testbed reports, summed over their labels' other values, from /metrics text. */
export function serverCounters(metrics: string): ServerCounters {
  const sum = (name: string, label = ''): number => {
    let n = 0;
    for (const m of metrics.matchAll(new RegExp(`^${name}\\{([^}]*)\\} ([0-9.eE+-]+)$`, 'gm'))) if (m[1]!.includes(label)) n += Number(m[2]);
    return n;
  };
  return {
    channelDropped: Object.fromEntries(COLORS.map((c) => [c, sum('pels_channel_packets_dropped_total', `color="${c}"`)])) as Record<Color, number>,
    keyframesForced: sum('pels_keyframes_forced_total'),
  };
}
