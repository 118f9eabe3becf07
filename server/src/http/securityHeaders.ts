/**
 * Headers every HTTP answer carries. The player is same-origin only: its
 * scripts, styles and worker come from this server, it talks to /api and /ws
 * here ('self' covers ws: and wss: of the same host), and it needs no inline
 * script, eval or WebAssembly. No page of the server may be framed (a
 * dashboard in a hidden frame could be clicked through). In a cluster the
 * player also opens the signaling WebSocket of the edge placement names:
 * `connect-src` then lists the cluster's live nodes too.
 */
const csp = (connect: readonly string[]): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    ["connect-src 'self'", ...connect].join(' '),
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/** A year: browsers then refuse plain HTTP to this host until it passes. */
const HSTS_MAX_AGE_S = 365 * 86_400;

/**
 * The headers for every answer; Strict-Transport-Security only when served over TLS. `connect`: the other
 * nodes' origins (`http://host:port`) the page may connect to, each allowed over HTTP(S) and WebSocket.
 */
export function securityHeaders(tls: boolean, connect: readonly string[] = []): Record<string, string> {
  return {
    'content-security-policy': csp(connect.flatMap((o) => [o, o.replace(/^http/, 'ws')])),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    ...(tls ? { 'strict-transport-security': `max-age=${HSTS_MAX_AGE_S}` } : {}),
  };
}
