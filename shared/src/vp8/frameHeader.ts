import { BoolDecoder } from './boolDecoder';

/** What the VP8 frame header (RFC 6386, sections 9.1-9.7) says about a frame. */
export interface Vp8FrameHeader {
  keyframe: boolean;
  /** Only keyframes carry the size; 0 otherwise. */
  width: number;
  height: number;
  showFrame: boolean;
  refreshLast: boolean;
  refreshGolden: boolean;
  refreshAltRef: boolean;
  /**
   * Temporal layer under FFmpeg/libvpx 3-layer mode (ts_layering_mode=3):
   * a keyframe or a frame that refreshes LAST is the base (0), one that
   * refreshes only GOLDEN/ALTREF is the middle layer (1), one that refreshes
   * nothing is the top layer (2).
   */
  temporalId: 0 | 1 | 2;
}

export class Vp8HeaderError extends Error {
  override name = 'Vp8HeaderError';
}

const KEYFRAME_START_CODE = [0x9d, 0x01, 0x2a] as const;

/** Parses the uncompressed chunk and the header part of the first partition. */
export function parseVp8FrameHeader(frame: Uint8Array): Vp8FrameHeader {
  if (frame.length < 3) throw new Vp8HeaderError(`VP8 frame too short (${frame.length} bytes)`);
  const keyframe = (frame[0]! & 0x01) === 0;
  const showFrame = (frame[0]! & 0x10) !== 0;
  let width = 0;
  let height = 0;
  let offset = 3;
  if (keyframe) {
    if (frame.length < 10) throw new Vp8HeaderError('VP8 keyframe header truncated');
    for (let i = 0; i < 3; i++) {
      if (frame[3 + i] !== KEYFRAME_START_CODE[i]) throw new Vp8HeaderError('VP8 keyframe start code missing');
    }
    width = (frame[6]! | (frame[7]! << 8)) & 0x3fff;
    height = (frame[8]! | (frame[9]! << 8)) & 0x3fff;
    offset = 10;
  }
  const bd = new BoolDecoder(frame, offset);
  if (keyframe) bd.readLiteral(2); // color space, clamping type
  if (bd.readLiteral(1)) {
    // segmentation_enabled
    const updateMap = bd.readLiteral(1);
    const updateData = bd.readLiteral(1);
    if (updateData) {
      bd.readLiteral(1); // segment feature mode
      for (let i = 0; i < 4; i++) bd.skipOptionalSigned(7); // quantizer
      for (let i = 0; i < 4; i++) bd.skipOptionalSigned(6); // loop filter
    }
    if (updateMap) for (let i = 0; i < 3; i++) if (bd.readLiteral(1)) bd.readLiteral(8);
  }
  bd.readLiteral(1 + 6 + 3); // filter type, level, sharpness
  if (bd.readLiteral(1) && bd.readLiteral(1)) {
    // loop filter deltas enabled and updated: 4 ref frame + 4 mode deltas
    for (let i = 0; i < 8; i++) bd.skipOptionalSigned(6);
  }
  bd.readLiteral(2); // log2 of DCT partitions
  bd.readLiteral(7); // y_ac_qi
  for (let i = 0; i < 5; i++) bd.skipOptionalSigned(4); // quantizer deltas
  if (keyframe) {
    return { keyframe, width, height, showFrame, refreshLast: true, refreshGolden: true, refreshAltRef: true, temporalId: 0 };
  }
  const refreshGolden = bd.readLiteral(1) === 1;
  const refreshAltRef = bd.readLiteral(1) === 1;
  if (!refreshGolden) bd.readLiteral(2); // copy_buffer_to_golden
  if (!refreshAltRef) bd.readLiteral(2); // copy_buffer_to_alternate
  bd.readLiteral(2); // sign bias golden, alternate
  bd.readLiteral(1); // refresh_entropy_probs
  const refreshLast = bd.readLiteral(1) === 1;
  const temporalId = refreshLast ? 0 : refreshGolden || refreshAltRef ? 1 : 2;
  return { keyframe, width, height, showFrame, refreshLast, refreshGolden, refreshAltRef, temporalId };
}

/** True when the frame updates no reference buffer (RFC 7741 N bit). */
export function isNonReference(h: Vp8FrameHeader): boolean {
  return !h.keyframe && !h.refreshLast && !h.refreshGolden && !h.refreshAltRef;
}
