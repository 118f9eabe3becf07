/**
 * CRC32 of a decoded frame's Y plane exactly as the server computes it: the visible
 * width * height bytes, row after row, without the stride padding of the copy.
 */
import { crc32 } from '@pels/shared/crc32';

export class YPlaneChecksum {
  /** One copy buffer, reused: frames are hashed one at a time. */
  private scratch = new Uint8Array(0);
  private queue: Promise<unknown> = Promise.resolve();

  /** Takes ownership of `frame` (closes it); resolves with the CRC, or rejects if the frame cannot be read. */
  hash(frame: VideoFrame): Promise<number> {
    const result = this.queue.then(() => this.hashNow(frame)).finally(() => frame.close());
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async hashNow(frame: VideoFrame): Promise<number> {
    const size = frame.allocationSize();
    if (this.scratch.length < size) this.scratch = new Uint8Array(size);
    // Copies the visible rectangle; plane 0 is Y in every 8-bit format (I420, I420A, NV12).
    const layout = await frame.copyTo(this.scratch);
    const y = layout[0];
    const rect = frame.visibleRect;
    if (!y || !rect) throw new Error(`cannot read the Y plane of a ${frame.format ?? 'opaque'} frame`);
    let crc = 0;
    for (let row = 0; row < rect.height; row++) {
      const start = y.offset + row * y.stride;
      crc = crc32(this.scratch.subarray(start, start + rect.width), crc);
    }
    return crc;
  }
}
