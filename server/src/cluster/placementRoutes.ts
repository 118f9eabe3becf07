import type { IncomingMessage } from 'node:http';
import { RequestError } from '../errors';
import type { Route } from '../http/httpServer';
import type { AddressRateLimit } from '../limits/addressRateLimit';
import type { ClusterRegistry } from './clusterRegistry';
import { chooseEdge } from './placement';
import { NODE_ID } from './registrySettings';

/** Node ids one request may exclude: a viewer excludes the edge it lost, a few at most. */
const MAX_EXCLUDED = 8;

export interface PlacementRouteOptions {
  /** undefined: a single server (no REDIS_URL), whose players play on it; else the registry, once made. */
  registry: (() => ClusterRegistry | undefined) | undefined;
  /** PLACE_REQUESTS_PER_MINUTE per client address: each answer reads the registry. */
  limit: AddressRateLimit;
  addressOf: (req: IncomingMessage) => string | undefined;
  onRefused: () => void;
}

/**
 * Placement through the registry: `GET /api/place?stream=ID&exclude=NODE` on any node names the edge a viewer
 * of the stream goes to: its id, the player's page there (the query kept but `exclude`) and its signaling
 * WebSocket, which the player opens from the page it was given (docs/api.md). A single server answers 404:
 * its players play on it.
 */
export function placementRoutes(o: PlacementRouteOptions): Route[] {
  const place = async (req: IncomingMessage): Promise<{ node: string; url: string; ws: string }> => {
    if (!o.registry) throw new RequestError('not_found', 'this node has no registry (REDIS_URL): it places no viewers, play here');
    // Charged where an answer reads the registry.
    const address = o.addressOf(req);
    if (!o.limit.take(address)) {
      o.onRefused();
      const retryAfterS = o.limit.retryAfterS(address);
      throw new RequestError('rate_limited', `too many placement requests from this address, try again in ${retryAfterS} s`, retryAfterS);
    }
    const r = o.registry();
    if (!r) throw new RequestError('unavailable', 'starting');
    const query = new URL(req.url ?? '/', 'http://node').searchParams;
    const stream = query.get('stream') || undefined;
    const exclude = excluded(query.get('exclude'));
    query.delete('exclude');
    const edge = chooseEdge(await r.nodes(), stream, exclude);
    if (!edge) throw new RequestError('unavailable', stream === undefined ? 'no edge has a place free now, try again' : `no edge serves stream "${stream}" with a place free now, try again`);
    const url = new URL('/', edge.url);
    url.search = query.toString();
    const ws = new URL('/ws', edge.url);
    ws.protocol = ws.protocol === 'https:' ? 'wss:' : 'ws:';
    return { node: edge.id, url: url.href, ws: ws.href };
  };
  return [{ method: 'GET', path: '/api/place', handler: (req) => place(req) }];
}

function excluded(text: string | null): Set<string> {
  const ids = (text ?? '').split(',').filter(Boolean);
  if (ids.length > MAX_EXCLUDED || ids.some((id) => !NODE_ID.test(id))) {
    throw new RequestError('bad_request', `exclude takes up to ${MAX_EXCLUDED} node ids separated by commas`);
  }
  return new Set(ids);
}
