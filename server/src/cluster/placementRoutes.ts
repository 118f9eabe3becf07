import type { IncomingMessage } from 'node:http';
import { RequestError } from '../errors';
import { HttpAnswer, type Route } from '../http/httpServer';
import type { ClusterRegistry } from './clusterRegistry';
import type { Role } from './clusterSettings';
import { chooseEdge } from './placement';

/**
 * Placement through the registry: `GET /api/place?stream=ID` on any node names the edge a new viewer of the
 * stream goes to (the player's URL there, its query kept); on an origin, the player's page itself is sent
 * there (302), so a viewer opening the origin's address plays on an edge.
 */
export function placementRoutes(registry: () => ClusterRegistry | undefined, role: Role): Route[] {
  const place = async (req: IncomingMessage): Promise<{ node: string; url: string }> => {
    const r = registry();
    if (!r) throw new RequestError('not_found', 'this node has no registry (REDIS_URL): it places no viewers');
    const query = new URL(req.url ?? '/', 'http://node').searchParams;
    const stream = query.get('stream') || undefined;
    const edge = chooseEdge(await r.nodes(), stream);
    if (!edge) throw new RequestError('unavailable', stream === undefined ? 'no edge has a place free now, try again' : `no edge serves stream "${stream}" with a place free now, try again`);
    const url = new URL('/', edge.url);
    url.search = query.toString();
    return { node: edge.id, url: url.href };
  };
  return [
    { method: 'GET', path: '/api/place', handler: (req) => place(req) },
    ...(role === 'origin' ? [{ method: 'GET' as const, path: '/', handler: async (req: IncomingMessage) => new HttpAnswer(302, { location: (await place(req)).url }) }] : []),
  ];
}
