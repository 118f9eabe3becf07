/**
 * When the soak injects which fault: every kind at least once in any window of
 * the period (5 minutes by default), in a random order, spread evenly with jitter,
 * never in the warm-up or the drain at the end. Pure: randomness is given.
 */

export const FAULT_KINDS = ['worker-kill', 'ffmpeg-kill', 'encoder-kill', 'ffmpeg-stop', 'link-down', 'signaling-abuse', 'stream-restart', 'publisher-drop', 'edge-loss'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export function isFaultKind(s: string): s is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(s);
}

export interface ScheduledFault {
  /** Seconds from the start of the run: the earliest the fault is injected (the runner waits for the previous one's recovery). */
  atS: number;
  kind: FaultKind;
}

export interface ScheduleOptions {
  seconds: number;
  /** Seconds at the start without faults (viewers join, rates settle). */
  warmupS: number;
  /** Seconds at the end without faults (the last recovery is seen). */
  drainS: number;
  /** Every kind at least once in each period of this many seconds. */
  periodS: number;
  kinds?: readonly FaultKind[];
  /** In [0, 1). */
  random: () => number;
}

export function faultSchedule(o: ScheduleOptions): ScheduledFault[] {
  const kinds = o.kinds ?? FAULT_KINDS;
  const start = o.warmupS;
  const end = o.seconds - o.drainS;
  if (end <= start || kinds.length === 0) return [];
  // One random order kept in every period, so a kind recurs a period apart, give or take half a slot of jitter: a
  // period of at most 2k/(2k+1) of periodS puts every kind in any window of periodS.
  const order = shuffled(kinds, o.random);
  const maxSpan = (o.periodS * 2 * order.length) / (2 * order.length + 1);
  const periods = Math.max(1, Math.ceil((end - start) / maxSpan));
  const span = (end - start) / periods;
  const slot = span / order.length;
  const out: ScheduledFault[] = [];
  for (let p = 0; p < periods; p++) {
    order.forEach((kind, i) => {
      // Anywhere in the middle half of its slot, so two faults are at least half a slot apart.
      const atS = start + p * span + slot * (i + 0.25 + 0.5 * o.random());
      out.push({ atS: Math.round(atS * 10) / 10, kind });
    });
  }
  return out;
}

function shuffled<T>(xs: readonly T[], random: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
