import type { EncodeSettings, Rendition, SourceSpec } from '../ingest/sourceSpec';
import type { StreamSummary } from './pipeProtocol';

/**
 * An edge's stream as the origin describes it: its sizes, rates and frame rate are the origin's (the edge's
 * own VIDEO_KBPS and RENDITIONS do not apply to piped streams); its source reads "origin stream" to players
 * and names the origin to the operator.
 */
export function edgeStreamSettings(
  summary: StreamSummary,
  encode: EncodeSettings,
  originUrl: URL,
): { id: string; name: string; source: SourceSpec; encode: EncodeSettings; renditions: Rendition[] } {
  const [top, ...lower] = summary.renditions;
  return {
    id: summary.id,
    name: summary.name,
    source: { kind: 'url', url: new URL(`/?stream=${encodeURIComponent(summary.id)}`, originUrl).href, scheme: 'origin' },
    encode: { ...encode, width: summary.width, height: summary.height, frameRate: summary.frameRate, bitrateKbps: top!.bitrateKbps },
    renditions: lower,
  };
}
