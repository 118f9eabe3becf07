/** What every experiment returns: flat rows for --json, a summary table, notes beside the paper, and a figure. */

export type Cell = number | string | boolean | null;
export type Row = Record<string, Cell>;

export interface ExperimentOptions {
  seed: number;
  /** Shorter runs and fewer samples, for tests. */
  short: boolean;
  /** The long form where an experiment has one (the paper's run lengths and every point); ignored by the others. */
  full?: boolean;
}

/** Simulated against wall-clock time of the discrete-event runs. */
export interface SimulationCost {
  simulatedSeconds: number;
  wallSeconds: number;
  events: number;
}

export interface ExperimentResult {
  experiment: string;
  parameters: Record<string, Cell | readonly Cell[]>;
  /** Every data point, flat. */
  rows: Row[];
  /** The table printed (and the key numbers). */
  summary: Row[];
  /** One line each: a result beside what the paper states. */
  notes: string[];
  figure: string;
  simulation?: SimulationCost;
}

export interface Experiment {
  name: string;
  description: string;
  run(options: ExperimentOptions): ExperimentResult;
}

/** Rounds for tables and JSON: simulation noise makes more digits meaningless. */
export function round(v: number | undefined, digits = 4): number | null {
  if (v === undefined || !Number.isFinite(v)) return null;
  return Number(v.toPrecision(digits));
}
