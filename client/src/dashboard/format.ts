/** Number formats of the dashboard; '—' for a value that is not known. */
export const DASH = '—';

export function fixed(v: number | null | undefined, digits: number): string {
  return v === null || v === undefined || !Number.isFinite(v) ? DASH : v.toFixed(digits);
}

export function percent(v: number | null | undefined): string {
  return v === null || v === undefined ? DASH : `${(v * 100).toFixed(1)}%`;
}

/** "3m 07s", "1h 02m": how long ago, from ms timestamps. */
export function since(fromMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}
