/** The encoder's temporal layers per period of 4 frames (libvpx ts_layering_mode=3). */
export const TEMPORAL_PATTERN = [0, 2, 1, 2] as const;

/** What the PELS flow policies need to know about one encoded frame. */
export interface FrameInfo {
  /** VP8 temporal layer: 0 base, 1 middle, 2 top (pattern 0,2,1,2 per period of 4). */
  temporalId: 0 | 1 | 2;
  /** Keyframes are always base (TID 0). */
  keyframe: boolean;
  /** Encoded size; budgets and red shares are counted in bytes. */
  bytes: number;
  /**
   * RFC 7741 Y bit: the frame references only the base layer. When omitted it is
   * inferred from the 0,2,1,2 pattern (the TID 2 frame after a TID 1 frame is
   * the only one that is not a sync point).
   */
  layerSync?: boolean;
}

/** Base frames (TID 0, keyframes): every other frame depends on them, so PELS always sends them, green. */
export function isBase(frame: Pick<FrameInfo, 'temporalId' | 'keyframe'>): boolean {
  return frame.keyframe || frame.temporalId === 0;
}
