/** IVF framing for feeding VP8 frames to FFmpeg on a pipe (the inverse of ingest/ivfReader.ts). */

const FILE_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;

/** The 32-byte file header of a VP8 IVF stream; the frame count is left 0 (a live stream). */
export function ivfFileHeader(width: number, height: number, frameRate: number): Buffer {
  const h = Buffer.alloc(FILE_HEADER_BYTES);
  h.write('DKIF', 0, 'latin1');
  h.writeUInt16LE(0, 4); // version
  h.writeUInt16LE(FILE_HEADER_BYTES, 6);
  h.write('VP80', 8, 'latin1');
  h.writeUInt16LE(width, 12);
  h.writeUInt16LE(height, 14);
  h.writeUInt32LE(frameRate, 16); // time base denominator
  h.writeUInt32LE(1, 20); // time base numerator
  return h;
}

/** One frame: its 12-byte header (size, pts) followed by the data. */
export function ivfFrame(pts: number, data: Uint8Array): Buffer {
  const h = Buffer.alloc(FRAME_HEADER_BYTES);
  h.writeUInt32LE(data.length, 0);
  h.writeBigUInt64LE(BigInt(pts), 4);
  return Buffer.concat([h, data]);
}
