/**
 * Which source frame a received frame is. The server stamps stream frame `index`
 * with RTP timestamp (timestampBase + index * ticksPerFrame) mod 2^32 (the viewer's
 * `timestampBase` comes in the `join` answer). The merger unwraps timestamps onto a
 * line without the 2^32 wrap, starting at the first one received; this puts that line
 * back on the stream's indexes. The one multiple of 2^32 left open is fixed by the
 * first frame, as the candidate nearest the stream's frame count at join (candidates
 * are 2^32 / ticksPerFrame frames apart: 13 hours at 30 fps). Pure.
 */
const TWO_32 = 2 ** 32;

export class FrameIndexer {
  /** Added to an unwrapped timestamp to get index * ticksPerFrame; fixed by the first frame. */
  private shift: number | undefined;

  constructor(
    private readonly timestampBase: number,
    private readonly ticksPerFrame: number,
    /** About where the stream was when the viewer joined (StreamInfo.framesIngested). */
    private readonly indexHint: number,
  ) {
    if (!(ticksPerFrame > 0)) throw new RangeError('ticksPerFrame must be positive');
  }

  /** The stream frame index of an unwrapped RTP timestamp (see frameMerger.ts). */
  indexOf(unwrappedTimestamp: number): number {
    if (this.shift === undefined) {
      const delta = unwrappedTimestamp - this.timestampBase;
      const wraps = Math.round((this.indexHint * this.ticksPerFrame - delta) / TWO_32);
      this.shift = wraps * TWO_32 - this.timestampBase;
    }
    return Math.round((unwrappedTimestamp + this.shift) / this.ticksPerFrame);
  }
}
