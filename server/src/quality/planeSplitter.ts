/**
 * Cuts a raw video byte stream (FFmpeg `-f rawvideo`, one gray plane per frame) into
 * planes of a fixed size, whatever the pipe's chunk boundaries. Each plane is a fresh
 * buffer of its own, so it can be transferred to a worker thread.
 */
export class PlaneSplitter {
  private current: Uint8Array;
  private filled = 0;

  constructor(private readonly planeBytes: number) {
    if (!(Number.isInteger(planeBytes) && planeBytes > 0)) throw new RangeError(`plane size must be a positive integer; got ${planeBytes}`);
    this.current = new Uint8Array(planeBytes);
  }

  /** Returns the planes the chunk completes. */
  push(chunk: Uint8Array): Uint8Array[] {
    const planes: Uint8Array[] = [];
    let off = 0;
    while (off < chunk.length) {
      const n = Math.min(this.planeBytes - this.filled, chunk.length - off);
      this.current.set(chunk.subarray(off, off + n), this.filled);
      this.filled += n;
      off += n;
      if (this.filled === this.planeBytes) {
        planes.push(this.current);
        this.current = new Uint8Array(this.planeBytes);
        this.filled = 0;
      }
    }
    return planes;
  }
}
