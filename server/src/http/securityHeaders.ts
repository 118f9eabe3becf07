/**
 * Headers every HTTP answer carries. The player is same-origin only: its
 * scripts, styles and worker come from this server, it talks to /api and /ws
 * here ('self' covers ws: and wss: of the same host), and it needs no inline
 * script, eval or WebAssembly. No page of the server may be framed (a
 * dashboard in a hidden frame could be clicked through).
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A year: browsers then refuse plain HTTP to this host until it passes. */
const HSTS_MAX_AGE_S = 365 * 86_400;

/** The headers for every answer; Strict-Transport-Security only when served over TLS. */
export function securityHeaders(tls: boolean): Record<string, string> {
  return {
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    ...(tls ? { 'strict-transport-security': `max-age=${HSTS_MAX_AGE_S}` } : {}),
  };
}
