/**
 * Where the player's signaling goes (docs/api.md, "Placement"): the page's own node (the front) is asked
 * `/api/place`, which names an edge of a cluster. A single server's page says it places no viewers: its
 * player opens its own `/ws` without asking (a 404 from `/api/place` means the same). An edge the player
 * lost is excluded for a while, as its registry record outlives it by up to 6 s.
 */
import { PLACEMENT_META } from '@pels/shared/protocol/api';
import { signalingUrl } from '../signaling/signalingClient';

export interface Placed {
  /** The edge's node id; undefined on a single server. */
  node: string | undefined;
  signalingUrl: string;
}

/** Where a session's signaling goes: the stream asked for, the edges to avoid. */
export type Placer = (streamId: string | undefined, exclude: readonly string[]) => Promise<Placed>;

/** How long a lost edge is not asked for again: longer than a dead node's record lives in the registry (6 s). */
export const LOST_EDGE_MS = 10_000;

/** The edges a player lost and when; pure but for the times it is given. */
export class LostEdges {
  private readonly at = new Map<string, number>();

  add(node: string, nowMs: number): void {
    this.at.set(node, nowMs);
  }

  /** Those lost within LOST_EDGE_MS of now. */
  list(nowMs: number): string[] {
    for (const [node, t] of this.at) if (nowMs - t >= LOST_EDGE_MS) this.at.delete(node);
    return [...this.at.keys()];
  }
}

/** The query of a placement request: the stream (if chosen) and the edges to avoid. */
export function placeQuery(streamId: string | undefined, exclude: readonly string[]): string {
  const q = new URLSearchParams();
  if (streamId !== undefined) q.set('stream', streamId);
  if (exclude.length) q.set('exclude', exclude.join(','));
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** Asks the front (the page's own node) where to connect. Throws with the front's reason when it has no edge to give. */
export async function placeViewer(front: Location, streamId: string | undefined, exclude: readonly string[]): Promise<Placed> {
  const res = await fetch(`${front.origin}/api/place${placeQuery(streamId, exclude)}`, { cache: 'no-store' });
  if (res.status === 404) return { node: undefined, signalingUrl: signalingUrl(front) };
  const body = (await res.json().catch(() => null)) as { node?: unknown; ws?: unknown; error?: { message?: unknown } } | null;
  if (res.ok && typeof body?.node === 'string' && typeof body.ws === 'string') return { node: body.node, signalingUrl: body.ws };
  throw new Error(typeof body?.error?.message === 'string' ? body.error.message : `placement answered HTTP ${res.status}`);
}

/**
 * The placer of a page's sessions: its own `/ws` at once when the page says its node places no viewers,
 * else the front's `/api/place` each time (a page that does not say asks).
 */
export function pagePlacer(front: Location, page: Pick<ParentNode, 'querySelector'>): Placer {
  if (page.querySelector(`meta[name="${PLACEMENT_META}"]`)?.getAttribute('content') === 'none') {
    const here: Placed = { node: undefined, signalingUrl: signalingUrl(front) };
    return () => Promise.resolve(here);
  }
  return (streamId, exclude) => placeViewer(front, streamId, exclude);
}
