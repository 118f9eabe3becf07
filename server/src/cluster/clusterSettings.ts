/**
 * ROLE: what one server process does in a deployment of several.
 * - `all`: today's single server (ingest and viewers in one process).
 * - `origin`: ingest, encoders, layering and quality tables; serves its streams to edges, no viewers.
 * - `edge`: viewers only; each stream comes once from ORIGIN_URL (or, without it, the origin the registry
 *   names) over a mediasoup PipeTransport.
 * Origin and edge prove themselves to each other with CLUSTER_TOKEN.
 */
export type ClusterSettings =
  | { role: 'all' }
  | { role: 'origin'; token: string }
  | { role: 'edge'; token: string; originUrl: URL | undefined };

export type Role = ClusterSettings['role'];

export const ROLES: readonly Role[] = ['all', 'origin', 'edge'];

/** The origin's WebSocket for its edges (stream list, pipe set-up, quality rows). */
export const CLUSTER_WS_PATH = '/cluster/ws';

/**
 * The settings from already-read values; returns the problem as text when they do not fit together.
 * `token` has passed the server's token rules; `registry`: REDIS_URL is set (an edge may find its origin there).
 */
export function clusterSettings(role: string, token: string | undefined, originUrl: string | undefined, registry = false): ClusterSettings | string {
  if (!(ROLES as readonly string[]).includes(role)) return `ROLE must be one of ${ROLES.join(', ')}, got "${role}"`;
  if (role !== 'edge' && originUrl !== undefined) return 'ORIGIN_URL is for ROLE=edge only';
  if (role === 'all') return token === undefined ? { role: 'all' } : 'CLUSTER_TOKEN is for ROLE=origin or edge only';
  if (token === undefined) return `ROLE=${role} needs CLUSTER_TOKEN, the secret origin and edges share (the same on every node)`;
  if (role === 'origin') return { role: 'origin', token };
  if (originUrl === undefined) {
    return registry ? { role: 'edge', token, originUrl: undefined } : 'ROLE=edge needs ORIGIN_URL, the origin\'s HTTP(S) address (e.g. http://10.0.0.5:8080), or REDIS_URL to find it in the registry';
  }
  let url: URL;
  try {
    url = new URL(originUrl);
  } catch {
    return `ORIGIN_URL must be an http:// or https:// URL, got "${originUrl}"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `ORIGIN_URL must be an http:// or https:// URL, got "${originUrl}"`;
  if (url.username || url.password) return 'ORIGIN_URL must not carry credentials: the edge proves itself with CLUSTER_TOKEN';
  if (url.pathname !== '/' || url.search || url.hash) return `ORIGIN_URL is the origin's address only (scheme, host, port), got "${originUrl}"`;
  return { role: 'edge', token, originUrl: url };
}

/** The origin's edge WebSocket URL. */
export function clusterSocketUrl(originUrl: URL): string {
  const url = new URL(CLUSTER_WS_PATH, originUrl);
  url.protocol = originUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}
