/**
 * How long synthetic viewers took to join, from their lives: the lives that started inside given windows
 * (the rejoin storm after a worker kill) against the rest, and how a lost edge's viewers came back (their
 * rejoins through the front). Pure: lives in, figures out.
 */
import { median, quantile } from '../testbed/metrics';
import type { Life } from './churnViewers';

export interface JoinTimes {
  /** Lives that tried to join (started) in the windows. */
  started: number;
  failed: number;
  medianMs: number | null;
  p90Ms: number | null;
  maxMs: number | null;
}

export interface RejoinTimes {
  /** Losses of a viewer's edge. */
  lost: number;
  /** Not back on another edge before the life ended. */
  notBack: number;
  medianMs: number | null;
  maxMs: number | null;
}

const within = (t: number, windows: ReadonlyArray<{ from: number; to: number }>) => windows.some((w) => t >= w.from && t < w.to);

/** Join times of the lives started inside `windows` (`inside`), or outside every one of them (`inside` false); cut lives that never joined are left out. */
export function joinTimes(lives: readonly Life[], windows: ReadonlyArray<{ from: number; to: number }>, inside: boolean): JoinTimes {
  const of = lives.filter((l) => within(l.startedMs, windows) === inside && !(l.cut && l.joinedMs === 0));
  const ms = of.flatMap((l) => (l.joinedMs > 0 && l.joinMs !== null ? [Math.round(l.joinMs)] : [])).sort((a, b) => a - b);
  return { started: of.length, failed: of.length - ms.length, medianMs: median(ms), p90Ms: quantile(ms, 0.9), maxMs: ms.at(-1) ?? null };
}

/** Each loss of an edge, over all lives: from the loss to the first keyframe on green from the edge the front named next. */
export function rejoinTimes(lives: readonly Life[]): RejoinTimes {
  const rejoins = lives.flatMap((l) => l.rejoins ?? []);
  const ms = rejoins.flatMap((r) => (r.ms === null ? [] : [Math.round(r.ms)])).sort((a, b) => a - b);
  return { lost: rejoins.length, notBack: rejoins.length - ms.length, medianMs: median(ms), maxMs: ms.at(-1) ?? null };
}
