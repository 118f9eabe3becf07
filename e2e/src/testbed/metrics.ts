/** Summary statistics for the testbed's per-second samples. */

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
