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

/** A displayed frame period: its source frame, the frame shown, its PSNR (player's window.pels.qualitySamples). */
export interface DisplaySample {
  t: number;
  psnr: number | null;
}

/** PSNR of the frames displayed in the second half of the run: mean and 5th percentile. */
export function psnrSummary(samples: readonly DisplaySample[], fromMs: number): { mean: number | null; p5: number | null; scored: number } {
  const xs = samples.filter((x) => x.t >= fromMs && x.psnr !== null).map((x) => x.psnr!).sort((a, b) => a - b);
  if (!xs.length) return { mean: null, p5: null, scored: 0 };
  return { mean: round(mean(xs), 2), p5: round(xs[Math.floor(0.05 * (xs.length - 1))]!, 2), scored: xs.length };
}
