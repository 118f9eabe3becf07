import type { RedisAddress } from './redisConnection';

/** REDIS_URL, REDIS_PASSWORD, NODE_URL, NODE_ID: where the cluster's registry is, and how this node appears in it. */
export interface RegistrySettings {
  redis: RedisAddress;
  /** How players and the other nodes reach this node; undefined: made at start from the port it listens on. */
  nodeUrl: URL | undefined;
  /** undefined: made at start from the role, the host's name and the port. */
  nodeId: string | undefined;
}

/** What a node id may be (NODE_ID, and the ids a placement request excludes). */
export const NODE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The settings from already-read values (undefined: no registry, REDIS_URL unset); the problem as text when
 * they do not fit. The password has a setting of its own so that REDIS_URL can be logged.
 */
export function registrySettings(
  redisUrl: string | undefined,
  password: string | undefined,
  nodeUrl: string | undefined,
  nodeId: string | undefined,
): RegistrySettings | undefined | string {
  if (redisUrl === undefined) {
    const stray = Object.entries({ REDIS_PASSWORD: password, NODE_URL: nodeUrl, NODE_ID: nodeId }).find(([, v]) => v !== undefined);
    return stray ? `${stray[0]} is for a node with a registry: set REDIS_URL too` : undefined;
  }
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch {
    return `REDIS_URL must be a redis:// URL, got "${redisUrl}"`;
  }
  if (url.protocol !== 'redis:' || !url.hostname) return `REDIS_URL must be a redis:// URL with a host, got "${redisUrl}"`;
  if (url.username || url.password) return 'REDIS_URL must not carry credentials: give the password in REDIS_PASSWORD';
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) return `REDIS_URL is the server's address only (host, port), got "${redisUrl}"`;
  if (password !== undefined && (password.length < 16 || /\s/.test(password))) return 'REDIS_PASSWORD must be at least 16 characters without spaces (Redis takes a password of any length: a short one is guessed)';
  let node: URL | undefined;
  if (nodeUrl !== undefined) {
    try {
      node = new URL(nodeUrl);
    } catch {
      return `NODE_URL must be an http:// or https:// URL, got "${nodeUrl}"`;
    }
    if ((node.protocol !== 'http:' && node.protocol !== 'https:') || node.pathname !== '/' || node.search || node.hash || node.username) {
      return `NODE_URL is the node's address only (http:// or https://, host, port), got "${nodeUrl}"`;
    }
  }
  if (nodeId !== undefined && !NODE_ID.test(nodeId)) return `NODE_ID must be 1 to 64 letters, digits, ".", "_", ":" or "-", got "${nodeId}"`;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { redis: { host, port: url.port ? Number(url.port) : 6379, password }, nodeUrl: node, nodeId };
}
