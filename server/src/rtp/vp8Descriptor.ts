/**
 * The VP8 RTP payload descriptor (RFC 7741, section 4.2) with the extensions a
 * temporal-layer receiver needs: 15-bit PictureID (I), TL0PICIDX (L) and
 * TID/Y (T). Chromium uses these to find each frame's references.
 */
export interface Vp8DescriptorFields {
  /** First packet of the frame (S bit, partition 0). */
  start: boolean;
  /** The frame updates no reference buffer (N bit). */
  nonReference: boolean;
  pictureId: number;
  tl0PicIdx: number;
  temporalId: number;
  /** The frame depends only on the base layer (Y bit). */
  layerSync: boolean;
}

export const VP8_DESCRIPTOR_BYTES = 6;
/** Where writeVp8Descriptor puts TL0PICIDX. */
export const VP8_TL0PICIDX_OFFSET = 4;

export function writeVp8Descriptor(f: Vp8DescriptorFields): Uint8Array {
  const d = new Uint8Array(VP8_DESCRIPTOR_BYTES);
  d[0] = 0x80 | (f.nonReference ? 0x20 : 0) | (f.start ? 0x10 : 0); // X, N, S, PID = 0
  d[1] = 0x80 | 0x40 | 0x20; // I, L, T
  d[2] = 0x80 | ((f.pictureId >> 8) & 0x7f); // M = 1: 15-bit PictureID
  d[3] = f.pictureId & 0xff;
  d[VP8_TL0PICIDX_OFFSET] = f.tl0PicIdx & 0xff;
  d[5] = ((f.temporalId & 0x03) << 6) | (f.layerSync ? 0x20 : 0);
  return d;
}

export interface ParsedVp8Descriptor extends Vp8DescriptorFields {
  /** Bytes taken by the descriptor; the VP8 payload follows. */
  length: number;
}

/** Reads a descriptor written by writeVp8Descriptor (and the general form). */
export function parseVp8Descriptor(p: Uint8Array): ParsedVp8Descriptor {
  const b0 = p[0]!;
  let off = 1;
  let pictureId = -1;
  let tl0PicIdx = -1;
  let temporalId = -1;
  let layerSync = false;
  if (b0 & 0x80) {
    const x = p[off++]!;
    if (x & 0x80) {
      const m = p[off++]!;
      pictureId = m & 0x80 ? ((m & 0x7f) << 8) | p[off++]! : m & 0x7f;
    }
    if (x & 0x40) tl0PicIdx = p[off++]!;
    if (x & 0x30) {
      const t = p[off++]!;
      if (x & 0x20) {
        temporalId = t >> 6;
        layerSync = (t & 0x20) !== 0;
      }
    }
  }
  return { start: (b0 & 0x10) !== 0, nonReference: (b0 & 0x20) !== 0, pictureId, tl0PicIdx, temporalId, layerSync, length: off };
}
