import type { NodeRecord } from './clusterRegistry';

/**
 * Where a new viewer of `stream` (undefined: any, the player takes the first listed) goes: the live edge
 * serving it with the most room (the lowest share of its viewer places taken; then the lowest CPU), or null
 * when no edge serves it with a place free. An edge that drains, or one the viewer just lost (`exclude`), is
 * never named. Pure: the registry's records in, one of them out.
 */
export function chooseEdge(nodes: readonly NodeRecord[], stream: string | undefined, exclude: ReadonlySet<string> = new Set()): NodeRecord | null {
  let best: NodeRecord | null = null;
  for (const n of nodes) {
    if (n.role !== 'edge' || n.draining || exclude.has(n.id) || (stream !== undefined && !n.streams.includes(stream)) || n.viewers >= n.viewersMax) continue;
    if (!best || load(n) < load(best) || (load(n) === load(best) && n.cpuPercentOfOneCore < best.cpuPercentOfOneCore)) best = n;
  }
  return best;
}

const load = (n: NodeRecord): number => n.viewers / n.viewersMax;
