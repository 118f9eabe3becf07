/**
 * When a publisher's video frames reached the server, by the publisher's own
 * timestamps (ms, wrapping at `wrapMs`: 2^32 for RTMP's, 2^33 / 90 for
 * MPEG-TS PTS). The ingest's frame n of a run stands for the source instant
 * n / frameRate after the first video frame (FFmpeg's fps filter keeps that
 * pace), so its entry time is the arrival of the first frame at or past that
 * instant. Bounded: the last KEPT frames.
 *
 * A publisher whose first timestamp reads as the server's own clock (epoch ms
 * within WALL_CLOCK_WINDOW_MS, modulo the wrap) stamps each frame with its
 * capture time, as the testbed's publisher does: those times are kept too
 * (`capture`), for the latency from publish to display. A publisher counting
 * from 0, as OBS and FFmpeg do by default, matches by chance about once in a
 * million connections (a 4 s window in 49.7 days of RTMP's wrap).
 *
 * A publisher that sends each frame's capture time apart from its timestamps
 * (WHIP's abs-capture-time) gives it with the frame (`note`'s `captureMs`).
 *
 * An ingest that dropped a stale span of the publisher's media (StaleMediaSkip)
 * reads the frames after it that much earlier: each frame is noted with the
 * span dropped before it, so the ingest's frame n still finds its own arrival
 * and capture time.
 */
const KEPT = 900;
export const WALL_CLOCK_WINDOW_MS = 2000;
/** RTMP's timestamps: ms, 32 bits. */
export const RTMP_WRAP_MS = 2 ** 32;
/** MPEG-TS PTS in ms: 33 bits at 90 kHz. */
export const PTS_WRAP_MS = 2 ** 33 / 90;

export class MediaArrivals {
  private first: number | undefined;
  /** The first frame's capture time (epoch ms) when the publisher stamps the wall clock; null when it does not. */
  private firstCapture: number | null = null;
  /** Since-first timestamps and arrival times, ascending. */
  private readonly since: number[] = [];
  private readonly at: number[] = [];
  /** The media time dropped before each (ms). */
  private readonly droppedBefore: number[] = [];
  /** Each one's capture time as the publisher sent it (epoch ms), if it did. */
  private readonly captured: (number | undefined)[] = [];

  constructor(private readonly wrapMs = RTMP_WRAP_MS) {}

  /** A video frame with timestamp `tsMs` arrived at `atMs` (epoch), written to the ingest `shiftMs` earlier (a span dropped before it), captured at `captureMs` (epoch) if the publisher said. */
  note(tsMs: number, atMs: number, shiftMs = 0, captureMs?: number): void {
    if (this.first === undefined) {
      this.first = tsMs;
      const captured = atMs - mod(mod(atMs, this.wrapMs) - tsMs, this.wrapMs);
      // Just behind the server's clock (a capture before its arrival), or a little ahead (clocks a hair apart).
      if (atMs - captured <= WALL_CLOCK_WINDOW_MS) this.firstCapture = captured;
      else if (this.wrapMs - (atMs - captured) <= WALL_CLOCK_WINDOW_MS) this.firstCapture = captured + this.wrapMs;
    }
    const since = mod(tsMs - shiftMs - this.first, this.wrapMs);
    // A timestamp that goes back (a B-frame's, a reset) is not a later frame.
    if (this.since.length && since <= this.since.at(-1)!) return;
    this.since.push(since);
    this.at.push(atMs);
    this.droppedBefore.push(shiftMs);
    this.captured.push(captureMs);
    if (this.since.length > KEPT) {
      this.since.shift();
      this.at.shift();
      this.droppedBefore.shift();
      this.captured.shift();
    }
  }

  /** When the first frame at or past `sinceFirstMs` arrived; undefined when it is not kept or not come yet. */
  arrival(sinceFirstMs: number): number | undefined {
    const k = this.find(sinceFirstMs);
    return k === undefined ? undefined : this.at[k];
  }

  /** The publisher's capture time (epoch ms) of that same frame; undefined when it stamps none, or the frame is not kept. */
  capture(sinceFirstMs: number): number | undefined {
    const k = this.find(sinceFirstMs);
    if (k === undefined) return undefined;
    if (this.captured[k] !== undefined) return this.captured[k];
    return this.firstCapture === null ? undefined : this.firstCapture + this.since[k]! + this.droppedBefore[k]!;
  }

  private find(sinceFirstMs: number): number | undefined {
    const s = this.since;
    if (!s.length || sinceFirstMs < s[0]! - 1 || sinceFirstMs > s.at(-1)!) return undefined;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid]! + 1 < sinceFirstMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const mod = (a: number, m: number): number => ((a % m) + m) % m;
