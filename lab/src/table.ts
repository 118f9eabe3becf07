import type { Row } from './experiments/experiment';

/** Rows as a plain-text table: one column per key of the first row, right-aligned numbers. */
export function formatTable(rows: readonly Row[]): string {
  if (rows.length === 0) return '(no rows)';
  const keys = Object.keys(rows[0]!);
  // A missing value (null) shows as '-'.
  const cells = rows.map((r) => keys.map((k) => String(r[k] ?? '-')));
  const widths = keys.map((k, i) => Math.max(k.length, ...cells.map((c) => c[i]!.length)));
  const numeric = keys.map((k) => rows.every((r) => typeof r[k] === 'number' || r[k] === null));
  const line = (values: readonly string[]): string =>
    values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(keys), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
