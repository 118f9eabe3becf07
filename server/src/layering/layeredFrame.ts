import type { FrameInfo } from '@pels/shared/pels/frame';
import { parseVp8FrameHeader, isNonReference } from '@pels/shared/vp8/frameHeader';

/** One encoded frame of a source, with what the per-viewer flows need to know about it. */
export interface LayeredFrame extends FrameInfo {
  /** Position in the source since the stream started (continues across ingest restarts). */
  index: number;
  /** RTP timestamp offset of the frame (90 kHz), index * ticksPerFrame. */
  ticks: number;
  /** Depends only on the base layer (RFC 7741 Y bit). */
  layerSync: boolean;
  nonReference: boolean;
  data: Uint8Array;
}

/**
 * Turns the encoder's frames into LayeredFrames. A frame is a layer sync point
 * when no frame of layers 1..its own came since the last base frame: in
 * the 0,2,1,2 pattern the first TID 2 and the TID 1 frame reference only the
 * base, the second TID 2 frame references the TID 1 frame.
 */
export class FrameLayering {
  private index = 0;
  /** Lowest enhancement layer seen since the last base frame (Infinity: none). */
  private lowestSinceBase = Infinity;

  constructor(private readonly ticksPerFrame: number) {}

  /** The next frame; at `index` when given (renditions share their indexes), else the one after the last. */
  next(data: Uint8Array, index = this.index): LayeredFrame {
    const h = parseVp8FrameHeader(data);
    const tid = h.temporalId;
    const layerSync = tid > 0 && this.lowestSinceBase > tid;
    this.lowestSinceBase = tid === 0 ? Infinity : Math.min(this.lowestSinceBase, tid);
    this.index = index + 1;
    return { index, ticks: index * this.ticksPerFrame, keyframe: h.keyframe, temporalId: tid, layerSync, nonReference: isNonReference(h), bytes: data.length, data };
  }
}
