/**
 * The quality menu's entries: Auto (the server moves the viewer between the
 * stream's renditions by its rate), then each rendition, full size first. Every
 * rendition is shown at the stream's size; a lower one is decoded smaller.
 */
import type { RenditionChoice, StreamInfo } from '@pels/shared/protocol/signaling';

export interface QualityOption {
  choice: RenditionChoice;
  label: string;
  /** The decoded size, e.g. "320×180". */
  detail: string;
}

type Renditions = StreamInfo['renditions'];

const size = (r: { width: number; height: number }) => `${r.width}×${r.height}`;

/** Nothing to choose from a stream of one rendition. */
export function qualityOptions(renditions: Renditions): QualityOption[] {
  if (renditions.length < 2) return [];
  const lower = renditions.length === 2 ? ['Lower size'] : renditions.slice(1).map((_, i) => `Lower size ${i + 1}`);
  return [
    { choice: 'auto', label: 'Auto', detail: 'by your connection' },
    ...renditions.map((r, i): QualityOption => ({ choice: i, label: i === 0 ? 'Full size' : lower[i - 1]!, detail: size(r) })),
  ];
}

/** The menu button's text: the choice, and under Auto the rendition playing (when known). */
export function qualityButtonLabel(choice: RenditionChoice, renditions: Renditions, playing: number | undefined): string {
  if (choice !== 'auto') return qualityOptions(renditions).find((o) => o.choice === choice)?.label ?? 'Auto';
  const r = playing === undefined ? undefined : renditions[playing];
  return r ? `Auto (${size(r)})` : 'Auto';
}
