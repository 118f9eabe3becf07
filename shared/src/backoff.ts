/**
 * Reconnect delay after `failures` consecutive failures (1, 2, ...): the ceiling doubles
 * from firstMs up to maxMs, and the delay is drawn between half the ceiling and the
 * ceiling ("equal jitter"), so clients dropped together do not come back together.
 * `random` is a number in [0, 1).
 */
export function backoffMs(failures: number, firstMs = 500, maxMs = 10_000, random = Math.random()): number {
  const ceiling = Math.min(maxMs, firstMs * 2 ** Math.max(0, failures - 1));
  return ceiling / 2 + (ceiling / 2) * random;
}
