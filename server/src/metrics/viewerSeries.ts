import type { ViewerState } from '@pels/shared/protocol/api';

/**
 * Per-viewer series are capped: viewer ids are random and every new viewer
 * makes new series, so a scrape exports at most `limit` viewers. The ones
 * kept are the longest connected (stable across scrapes, so their series are
 * continuous); the aggregates by stream and color cover everyone.
 */
export function viewersToExport(viewers: readonly ViewerState[], limit: number): { kept: ViewerState[]; omitted: number } {
  const sorted = [...viewers].sort((a, b) => a.connectedAt.localeCompare(b.connectedAt) || a.id.localeCompare(b.id));
  return { kept: sorted.slice(0, limit), omitted: Math.max(0, sorted.length - limit) };
}
