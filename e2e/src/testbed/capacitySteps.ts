/** The bottleneck's capacity changes during a testbed run (`--capacity-step SECONDS:KBPS`). */

export interface CapacityStep {
  /** Seconds into the run (from the viewers' start). */
  atS: number;
  kbps: number;
}

/** One `SECONDS:KBPS`; a RangeError says what is wrong with it. */
export function parseCapacityStep(raw: string, runSeconds: number): CapacityStep {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(raw.trim());
  if (!m) throw new RangeError(`--capacity-step takes SECONDS:KBPS, e.g. 20:1000; got "${raw}"`);
  const atS = Number(m[1]);
  const kbps = Number(m[2]);
  if (!(atS > 0 && atS < runSeconds)) throw new RangeError(`--capacity-step ${raw}: the time must be within the run (0, ${runSeconds}) s`);
  if (!(kbps >= 64 && kbps <= 1_000_000)) throw new RangeError(`--capacity-step ${raw}: the capacity must be in [64, 1000000] kb/s`);
  return { atS, kbps };
}

/** The steps in time order; two at the same time are refused. */
export function orderSteps(steps: readonly CapacityStep[]): CapacityStep[] {
  const sorted = [...steps].sort((a, b) => a.atS - b.atS);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.atS === sorted[i - 1]!.atS) throw new RangeError(`two --capacity-step at ${sorted[i]!.atS} s`);
  return sorted;
}

/** The capacity in force tS seconds into the run. */
export function capacityAt(initialKbps: number, steps: readonly CapacityStep[], tS: number): number {
  let kbps = initialKbps;
  for (const s of steps) if (s.atS <= tS) kbps = s.kbps;
  return kbps;
}
