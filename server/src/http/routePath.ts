/**
 * Route paths with parameters: `/api/viewers/:id/mode` matches
 * `/api/viewers/ab12/mode` with `{ id: 'ab12' }`. A parameter is one whole,
 * non-empty path segment; everything else must be equal.
 */
export type RouteParams = Record<string, string>;

/** The parameters when `path` matches `pattern`, else null. */
export function matchPath(pattern: string, path: string): RouteParams | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: RouteParams = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (!g) return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null; // malformed %-escape: no route has such a segment
      }
    } else if (w !== g) return null;
  }
  return params;
}
