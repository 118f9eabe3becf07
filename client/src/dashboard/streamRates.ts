import type { OperatorSnapshot } from '@pels/shared/protocol/operator';

/**
 * Measured frame rate of each stream between two snapshots (frames ingested
 * over the time between them); absent for a stream new in `next`, restarted
 * counters, or snapshots too close together to tell.
 */
export function measuredFps(prev: OperatorSnapshot | null, next: OperatorSnapshot): Map<string, number> {
  const out = new Map<string, number>();
  if (!prev) return out;
  const dt = (Date.parse(next.at) - Date.parse(prev.at)) / 1000;
  if (!(dt >= 0.2)) return out;
  for (const s of next.streams) {
    const before = prev.streams.find((p) => p.id === s.id);
    if (before && s.framesIngested >= before.framesIngested) out.set(s.id, (s.framesIngested - before.framesIngested) / dt);
  }
  return out;
}
