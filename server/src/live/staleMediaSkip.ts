/**
 * Keeps a live ingest near its publisher's present: when the ingest falls more
 * than `maxBehindMs` behind (in media time, what it has not read yet), the
 * publisher's audio and video are dropped up to its next keyframe that comes
 * once the ingest is under half that, and everything after it is written
 * earlier by the span dropped. The ingest then sees one continuous stream
 * with a cut in its picture, not a gap in its timestamps: a gap would be
 * filled by FFmpeg's frame-rate filter with copies of the last frame, which
 * the encoders would encode (as much work as the frames dropped, so the
 * ingest would never catch up, and would send the copies in a burst).
 * Timestamps are ms, wrapping at `wrapMs`. Pure.
 */
export type MediaKind = 'keyframe' | 'frame' | 'audio' | 'header';

/**
 * How far behind its publisher a live ingest may fall, in media time (what it
 * has not read yet), over RTMP and SRT. In time rather than bytes: 512 KiB was
 * 2.7 s at 1.5 Mb/s.
 */
export const INGEST_MAX_BEHIND_MS = 400;

/** A frame interval past this is a gap, not the publisher's frame rate. */
const MAX_FRAME_INTERVAL_MS = 200;

export class StaleMediaSkip {
  private skipping = false;
  /** The media time dropped so far: what follows is written this much earlier. */
  private shift = 0;
  /** The publisher's timestamp of the last video frame written. */
  private lastVideoMs: number | undefined;
  /** The publisher's frame interval, from the last two frames written in a row. */
  private intervalMs = 33;
  private lastAudioOutMs: number | undefined;
  /** The publisher's timestamp of the keyframe the last drop ended at. */
  private resumedAtMs: number | undefined;
  private lastOutMs = 0;
  /** Times the ingest fell behind and media was dropped. */
  skips = 0;
  /** Audio and video messages dropped. */
  dropped = 0;

  constructor(
    private readonly maxBehindMs: number,
    private readonly wrapMs: number,
  ) {}

  /** The span (ms) dropped so far: a frame written at `t` was the publisher's `t + shiftMs`. */
  get shiftMs(): number {
    return this.shift;
  }

  /** Whether media is being dropped now. */
  get isSkipping(): boolean {
    return this.skipping;
  }

  /** The timestamp the last message written was given. */
  get lastWrittenMs(): number {
    return this.lastOutMs;
  }

  /**
   * A message of the publisher's with timestamp `tsMs`, the ingest `behindMs`
   * behind: the timestamp to write it with, or null: dropped. Codec headers
   * always pass, with the last timestamp written (publishers send them at 0).
   */
  next(kind: MediaKind, tsMs: number, behindMs: number): number | null {
    if (kind === 'header') return this.lastOutMs;
    if (!this.skipping && behindMs > this.maxBehindMs) {
      this.skipping = true;
      this.skips++;
    }
    const resumed = this.skipping;
    if (this.skipping) {
      if (kind !== 'keyframe' || behindMs >= this.maxBehindMs / 2) {
        this.dropped++;
        return null;
      }
      this.skipping = false;
      this.resumedAtMs = tsMs;
      // The keyframe follows the last frame written one frame interval later.
      if (this.lastVideoMs !== undefined) this.shift = this.mod(this.shift + Math.max(0, this.mod(tsMs - this.lastVideoMs) - this.intervalMs));
    }
    // Audio of the span dropped that comes after the keyframe (an MPEG-TS muxer sends sound in PES of several frames, late).
    if (kind === 'audio' && this.resumedAtMs !== undefined && this.signed(tsMs - this.resumedAtMs) < 0) {
      this.dropped++;
      return null;
    }
    const out = this.mod(tsMs - this.shift);
    if (kind === 'audio') {
      // Audio of the span kept before the cut may reach past the keyframe's new time: what would go back is dropped.
      if (this.lastAudioOutMs !== undefined && this.signed(out - this.lastAudioOutMs) < 0) {
        this.dropped++;
        return null;
      }
      this.lastAudioOutMs = out;
    } else {
      if (this.lastVideoMs !== undefined && !resumed) {
        const interval = this.mod(tsMs - this.lastVideoMs);
        if (interval > 0 && interval <= MAX_FRAME_INTERVAL_MS) this.intervalMs = interval;
      }
      this.lastVideoMs = tsMs;
    }
    this.lastOutMs = out;
    return out;
  }

  private mod(x: number): number {
    return ((x % this.wrapMs) + this.wrapMs) % this.wrapMs;
  }

  /** A difference of two wrapped times, from -wrap/2 to wrap/2. */
  private signed(x: number): number {
    const m = this.mod(x);
    return m >= this.wrapMs / 2 ? m - this.wrapMs : m;
  }
}
