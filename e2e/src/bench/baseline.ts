/**
 * Benchmark baselines (pure): the median and spread of each figure over
 * several runs, and a new run's figures judged against them.
 */
import { median } from '../testbed/metrics';
import type { Figures } from './figures';

export interface FigureSpread {
  median: number;
  min: number;
  max: number;
  /** Every run's value, in run order. */
  values: number[];
}

export interface Baseline {
  benchmark: string;
  /** The benchmark's own arguments (after its name): what `check` runs again. */
  args: string[];
  /** The command that measured it. */
  command: string;
  date: string;
  commit: string;
  runs: number;
  /** The machine's 1-minute load average before each run: how noisy the figures may be. */
  loadAverage: number[];
  figures: Record<string, FigureSpread>;
}

/** Each figure's median and spread over the runs; a figure some runs lack is kept over the runs that have it. */
export function spreads(runs: readonly Figures[]): Record<string, FigureSpread> {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))].sort();
  return Object.fromEntries(
    names.map((name) => {
      const values = runs.flatMap((r) => (name in r ? [r[name]!] : []));
      return [name, { median: median(values)!, min: Math.min(...values), max: Math.max(...values), values }];
    }),
  );
}

export type Verdict = 'within' | 'above' | 'below' | 'missing' | 'new';

export interface FigureCheck {
  name: string;
  verdict: Verdict;
  value: number | null;
  baseline: FigureSpread | null;
}

/**
 * Each figure against its baseline spread, widened by `margin` times the
 * median on either side (0: the spread itself). A figure the run lacks is
 * missing; one the baseline lacks is new. Only above, below and missing are moves.
 */
export function checkFigures(baseline: Record<string, FigureSpread>, run: Figures, margin = 0): FigureCheck[] {
  if (!(margin >= 0)) throw new RangeError(`margin must be >= 0; got ${margin}`);
  const names = [...new Set([...Object.keys(baseline), ...Object.keys(run)])].sort();
  return names.map((name) => {
    const b = baseline[name] ?? null;
    const value = run[name] ?? null;
    if (!b) return { name, verdict: 'new', value, baseline: null };
    if (value === null) return { name, verdict: 'missing', value, baseline: b };
    const slack = margin * Math.abs(b.median);
    const verdict = value > b.max + slack ? 'above' : value < b.min - slack ? 'below' : 'within';
    return { name, verdict, value, baseline: b };
  });
}

export const isMove = (c: FigureCheck): boolean => c.verdict === 'above' || c.verdict === 'below' || c.verdict === 'missing';
