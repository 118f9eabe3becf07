/**
 * Incremental IVF demuxer: FFmpeg writes IVF to a pipe and chunks arrive at
 * arbitrary boundaries; each complete frame is returned as soon as its last
 * byte has arrived, so nothing waits for the next frame.
 */
export interface IvfHeader {
  fourcc: string;
  width: number;
  height: number;
  timebaseNum: number;
  timebaseDen: number;
}

export interface IvfFrame {
  /** Presentation timestamp in timebase units. */
  pts: bigint;
  data: Uint8Array;
}

export class IvfFormatError extends Error {
  override name = 'IvfFormatError';
}

const FILE_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;
/** A frame bigger than this means a corrupt stream, not a video frame. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class IvfReader {
  private buf: Buffer = Buffer.alloc(0);
  private fileHeader: IvfHeader | null = null;

  get header(): IvfHeader | null {
    return this.fileHeader;
  }

  /** Feeds bytes; returns the frames completed by them. Throws IvfFormatError on a corrupt stream. */
  push(chunk: Uint8Array): IvfFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : Buffer.from(chunk);
    const frames: IvfFrame[] = [];
    let off = 0;
    if (!this.fileHeader) {
      if (this.buf.length < FILE_HEADER_BYTES) return frames;
      this.fileHeader = parseFileHeader(this.buf);
      off = this.buf.readUInt16LE(6);
    }
    while (this.buf.length - off >= FRAME_HEADER_BYTES) {
      const size = this.buf.readUInt32LE(off);
      if (size > MAX_FRAME_BYTES) throw new IvfFormatError(`IVF frame of ${size} bytes: stream is corrupt`);
      if (this.buf.length - off < FRAME_HEADER_BYTES + size) break;
      const pts = this.buf.readBigUInt64LE(off + 4);
      // Copy: the frame outlives this buffer, which is reused for the remainder.
      frames.push({ pts, data: Uint8Array.prototype.slice.call(this.buf, off + FRAME_HEADER_BYTES, off + FRAME_HEADER_BYTES + size) });
      off += FRAME_HEADER_BYTES + size;
    }
    this.buf = this.buf.subarray(off);
    return frames;
  }
}

function parseFileHeader(b: Buffer): IvfHeader {
  if (b.toString('latin1', 0, 4) !== 'DKIF') throw new IvfFormatError('not an IVF stream (no DKIF signature)');
  const headerLen = b.readUInt16LE(6);
  if (headerLen < FILE_HEADER_BYTES) throw new IvfFormatError(`IVF header length ${headerLen} is too short`);
  return {
    fourcc: b.toString('latin1', 8, 12),
    width: b.readUInt16LE(12),
    height: b.readUInt16LE(14),
    timebaseDen: b.readUInt32LE(16),
    timebaseNum: b.readUInt32LE(20),
  };
}
