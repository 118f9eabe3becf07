/**
 * How far behind its publisher a live ingest is, in media time: the bytes it
 * has not read yet (what its input stream buffers) span the tags from the
 * oldest unread to the newest written, and the difference of their
 * timestamps (ms, wrapping at `wrapMs`: 2^32 for RTMP's, 2^33 / 90 for MPEG-TS
 * PTS) is the backlog. Pure: the caller
 * says what it wrote and how much is still buffered.
 */
export class MediaBacklog {
  /** Each tag still possibly unread: where its bytes end in the whole stream written, and its timestamp. */
  private readonly tags: { end: number; ts: number }[] = [];
  private written = 0;

  constructor(private readonly wrapMs = 2 ** 32) {}

  /** A tag of `bytes` with timestamp `tsMs` was written. */
  wrote(bytes: number, tsMs: number): void {
    this.written += bytes;
    this.tags.push({ end: this.written, ts: tsMs });
  }

  /** The backlog (ms) while `buffered` bytes are still unread. */
  behindMs(buffered: number): number {
    const read = this.written - buffered;
    // A tag whose last byte was read has left the backlog (the one partly read stays).
    while (this.tags.length > 1 && this.tags[0]!.end <= read) this.tags.shift();
    if (!this.tags.length || buffered <= 0) return 0;
    const span = (this.tags.at(-1)!.ts - this.tags[0]!.ts) % this.wrapMs;
    return span < 0 ? span + this.wrapMs : span;
  }
}
