/**
 * The figures of a benchmark's JSON output (`npm run bench -- NAME --json`),
 * flat and named, for baselines and checks (pure).
 *
 * Each benchmark prints rows; a row is named by the fields that say what was
 * measured (viewers, link, mode...), and every other number in it, nested or
 * in an array, is a figure. Rows with the same name in one output (the
 * repeats of a cell) are averaged. Inputs and context (a run's number, the
 * machine's load average) are not figures.
 */

/** Where a benchmark's rows are, and which of their fields name them or are not figures. */
interface Layout {
  rows: string;
  key: readonly string[];
  skip: readonly string[];
}

export const FIGURE_LAYOUTS: Readonly<Record<string, Layout>> = {
  capacity: { rows: 'rows', key: ['fanout', 'viewers'], skip: ['ok'] },
  convergence: { rows: 'rows', key: ['viewers', 'feedback'], skip: ['capacityKbps', 'stationaryKbps'] },
  dscp: { rows: 'rows', key: ['marker', 'viewers'], skip: [] },
  encoder: { rows: 'runs', key: ['pipeline'], skip: ['repeat'] },
  loss: { rows: 'rows', key: ['mode', 'link', 'lossPct'], skip: ['run', 'capacityKbps', 'loadAverage', 'errors'] },
  playback: { rows: 'rows', key: ['case'], skip: [] },
  'pels-scale': { rows: 'rows', key: ['viewers'], skip: ['run', 'capacityKbps', 'stationaryKbps', 'loadAverage'] },
};

export type Figures = Record<string, number>;

/** The named figures of one benchmark output; throws on an output that is not one of a known benchmark. */
export function figuresOf(output: unknown): Figures {
  const doc = output as { benchmark?: unknown } & Record<string, unknown>;
  const layout = typeof doc?.benchmark === 'string' ? FIGURE_LAYOUTS[doc.benchmark] : undefined;
  if (!layout) throw new Error(`not the output of a known benchmark (${Object.keys(FIGURE_LAYOUTS).join(', ')})`);
  const rows = doc[layout.rows];
  if (!Array.isArray(rows)) throw new Error(`${doc.benchmark as string}: no ${layout.rows} in the output`);
  const sums = new Map<string, { sum: number; n: number }>();
  for (const row of rows as Record<string, unknown>[]) {
    const name = layout.key.map((k) => `${k}=${String(row[k])}`).join(' ');
    for (const [field, value] of Object.entries(row)) {
      if (layout.key.includes(field) || layout.skip.includes(field)) continue;
      for (const [path, x] of leaves(value, field)) {
        const s = sums.get(`${name} ${path}`) ?? { sum: 0, n: 0 };
        sums.set(`${name} ${path}`, { sum: s.sum + x, n: s.n + 1 });
      }
    }
  }
  return Object.fromEntries([...sums].map(([k, s]) => [k, s.sum / s.n]));
}

/** Finite numbers under `value`, with their dotted paths; null, strings and booleans are not figures. */
function leaves(value: unknown, path: string): [string, number][] {
  if (typeof value === 'number') return Number.isFinite(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}.${i}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  return [];
}
