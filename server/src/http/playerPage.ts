import { PLACEMENT_META, type PagePlacement } from '@pels/shared/protocol/api';

/**
 * The player's page as this node serves it: it says whether the node places viewers (docs/api.md,
 * "Placement"), so that a single server's player opens its `/ws` without a `/api/place` round trip first.
 */
export function playerPage(placement: PagePlacement): (html: string) => string {
  const meta = `<meta name="${PLACEMENT_META}" content="${placement}" />`;
  return (html) => html.replace('</head>', `${meta}\n</head>`);
}
