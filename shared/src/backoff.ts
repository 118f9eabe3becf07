/** Reconnect delay after `failures` consecutive failures (1, 2, ...): doubling from firstMs, capped at maxMs. */
export function backoffMs(failures: number, firstMs = 500, maxMs = 10_000): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, failures - 1));
}
