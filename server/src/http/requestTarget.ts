/**
 * The request target of an HTTP request or WebSocket upgrade, checked once at
 * the edge. Node hands over `req.url` as the client sent it; parsing it with
 * `new URL(target, base)` throws on targets like `//` (read as a host), so
 * every handler gets this parsed form instead, or the request a 400.
 */
export interface RequestTarget {
  /** The path as sent (percent-escapes kept), for route matching. */
  path: string;
  /** The path with percent-escapes decoded, for file lookup. */
  decodedPath: string;
}

/** The parsed target, or null when it is malformed (the caller answers 400). */
export function parseRequestTarget(target: string | undefined): RequestTarget | null {
  // Origin form only ("/path?query"): the absolute form is for proxies, and "*" for OPTIONS.
  if (!target || !target.startsWith('/')) return null;
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  // An empty segment names no file and no route; a client sending one is confused or probing.
  if (path.includes('//')) return null;
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(path);
  } catch {
    return null; // a malformed %-escape
  }
  if (/[\x00-\x1f\x7f]/.test(decodedPath)) return null;
  return { path, decodedPath };
}
