/** `--capacity-step SECONDS:KBPS`: at SECONDS into the run the bottleneck becomes KBPS. */
export interface CapacityStep {
  atS: number;
  kbps: number;
}

/** Parses one `SECONDS:KBPS`; throws a RangeError naming what is wrong. */
export function parseCapacityStep(raw: string): CapacityStep {
  const m = /^(\d+(?:\.\d+)?):(\d+)$/.exec(raw.trim());
  if (!m) throw new RangeError(`--capacity-step must be SECONDS:KBPS (e.g. 20:400); got "${raw}"`);
  const step = { atS: Number(m[1]), kbps: Number(m[2]) };
  if (step.kbps < 64 || step.kbps > 1_000_000) throw new RangeError(`--capacity-step rate must be in [64, 1000000] kb/s; got "${raw}"`);
  return step;
}

/**
 * Runs `apply` for each step at its time from now (steps in any order);
 * returns the function that cancels the ones still to come.
 */
export function scheduleCapacitySteps(steps: readonly CapacityStep[], apply: (step: CapacityStep) => Promise<void>, onError: (err: unknown) => void): () => void {
  const timers = steps.map((s) => setTimeout(() => void apply(s).catch(onError), s.atS * 1000));
  return () => timers.forEach(clearTimeout);
}
