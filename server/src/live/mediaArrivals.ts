/**
 * When a publisher's video frames reached the server, by the publisher's own
 * timestamps (ms, wrapping at 2^32 as RTMP's do). The ingest's frame n of a
 * run stands for the source instant n / frameRate after the first video frame
 * (FFmpeg's fps filter keeps that pace), so its entry time is the arrival of
 * the first frame at or past that instant. Bounded: the last KEPT frames.
 */
const KEPT = 900;

export class MediaArrivals {
  private first: number | undefined;
  /** Since-first timestamps and arrival times, ascending. */
  private readonly since: number[] = [];
  private readonly at: number[] = [];

  /** A video frame with timestamp `tsMs` arrived at `atMs` (epoch). */
  note(tsMs: number, atMs: number): void {
    this.first ??= tsMs;
    const since = (tsMs - this.first) >>> 0;
    // A timestamp that goes back (a B-frame's, a reset) is not a later frame.
    if (this.since.length && since <= this.since.at(-1)!) return;
    this.since.push(since);
    this.at.push(atMs);
    if (this.since.length > KEPT) {
      this.since.shift();
      this.at.shift();
    }
  }

  /** When the first frame at or past `sinceFirstMs` arrived; undefined when it is not kept or not come yet. */
  arrival(sinceFirstMs: number): number | undefined {
    const s = this.since;
    if (!s.length || sinceFirstMs < s[0]! - 1 || sinceFirstMs > s.at(-1)!) return undefined;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid]! + 1 < sinceFirstMs) lo = mid + 1;
      else hi = mid;
    }
    return this.at[lo];
  }
}
