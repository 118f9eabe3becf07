/**
 * How the server's live heap moved over a soak. One reading after a full
 * collection swings with what is in flight at that instant (buffers of the
 * viewers there then): 31-39 MB minute to minute in a 30-minute run, with no
 * trend. So each minute is the median of several readings, and the growth is
 * given two ways: first minute to last, and the change over the run of a line
 * fitted to every minute (least squares), against the line's start.
 */

/** Percent, one decimal; null without two values or from 0. */
function pct(from: number, to: number): number | null {
  return from > 0 ? Math.round(((to - from) / from) * 1000) / 10 : null;
}

/** First minute to last, each minute's value its median reading. */
export function firstToLastPct(minutes: readonly number[]): number | null {
  return minutes.length >= 2 ? pct(minutes[0]!, minutes.at(-1)!) : null;
}

/** The change over the run of the least-squares line through the minutes (at 0, 1, 2...), against the line at the first minute. */
export function fittedGrowthPct(minutes: readonly number[]): number | null {
  const n = minutes.length;
  if (n < 2) return null;
  const meanX = (n - 1) / 2;
  const meanY = minutes.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  minutes.forEach((y, x) => {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
  });
  const slope = sxy / sxx;
  const start = meanY - slope * meanX;
  return pct(start, start + slope * (n - 1));
}
