/** What a cluster run (--edges) adds to the testbed's and the load test's JSON: each node, and the viewers' way back from a killed edge. Pure. */
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import type { ReceiversReport } from '../loadtest/receiverReport';
import { quantile, round } from './metrics';

export interface NodeResult {
  id: string;
  role: 'origin' | 'edge';
  /** host:port. */
  address: string;
  /** Its viewers and its places for viewers, as its last record in the registry said (for a killed edge: before it died); null: never seen. */
  viewers: number | null;
  viewersMax: number | null;
  /** The node's process tree (node, its media workers, FFmpeg and the encoder) over the measured interval; a killed edge's only while it lived. */
  cpuPercentOfOneCore: number | null;
  /** Seconds into the run it was killed (--kill-edge). */
  killedAtS?: number;
}

/** tsx's compiler service of a server run from source: not the product's. */
const NOT_PRODUCT = new Set(['esbuild']);

/**
 * One row per node: `lastSeen`, the last record the registry gave of each node id; `cpu`, each node's process
 * tree by name (TreeCpu's groups, one per node id); `t0`, the run's start (Unix ms), for a kill's time.
 */
export function nodeResults(
  nodes: readonly { id: string; role: 'origin' | 'edge'; address: string; killedAtMs?: number }[],
  lastSeen: ReadonlyMap<string, NodeRecord>,
  cpu: Readonly<Record<string, Readonly<Record<string, number>>>>,
  t0: number,
): NodeResult[] {
  return nodes.map((n) => {
    const rec = lastSeen.get(n.id);
    const tree = cpu[n.id];
    const used = tree ? Object.entries(tree).reduce((sum, [name, pct]) => (NOT_PRODUCT.has(name) ? sum : sum + pct), 0) : null;
    return {
      id: n.id,
      role: n.role,
      address: n.address,
      viewers: rec?.viewers ?? null,
      viewersMax: rec?.viewersMax ?? null,
      cpuPercentOfOneCore: round(used, 1),
      ...(n.killedAtMs === undefined ? {} : { killedAtS: round((n.killedAtMs - t0) / 1000, 1)! }),
    };
  });
}

export interface RejoinResult {
  /** Synthetic viewers that lost their edge. */
  viewers: number;
  /** From the loss to the first complete keyframe on green from the edge the front named next, over those back. */
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
  /** Lost their edge and were not back by the run's end. */
  failed: number;
}

/** The synthetic viewers' losses of their edge (each receiver's first, from the edge `from`; any edge when undefined). */
export function rejoinResult(report: ReceiversReport, from?: string): RejoinResult {
  const firsts = report.receivers.flatMap((r) => {
    const first = (r.rejoins ?? []).find((j) => from === undefined || j.from === from);
    return first ? [first] : [];
  });
  const back = firsts.flatMap((j) => (j.ms === null ? [] : [j.ms]));
  return {
    viewers: firsts.length,
    p50Ms: round(quantile(back, 0.5), 0),
    p95Ms: round(quantile(back, 0.95), 0),
    maxMs: back.length ? Math.round(Math.max(...back)) : null,
    failed: firsts.length - back.length,
  };
}
