/**
 * Lip sync, pure. The video is decoded by WebCodecs outside the browser's own
 * audio/video sync, so the player times the display of each frame from the
 * sound's playout: the audio receiver says which RTP timestamp it is playing
 * out (getSynchronizationSources), the server's timestamp bases say which
 * source instant a timestamp stands for (signaling `consumeAudio`), and frame
 * `index` stands for instant `index * frameMs`. The sound's lateness (now
 * minus the source instant playing now) is when each frame is due: the
 * display clock shows frame i no earlier than `i * frameMs + lateness`.
 *
 * Times are ms on the caller's clock; sample times in ms since the epoch are
 * converted with the caller's time origin.
 */

/** Samples of the sound's lateness kept: the median of about the last half second. */
const LATENESS_SAMPLES = 11;
/** Offsets kept for the reported median: about the last 2 s of drawn frames at 30 fps. */
const OFFSET_SAMPLES = 60;
const TWO_32 = 2 ** 32;

export interface AudioTiming {
  /** Audio RTP timestamp of the stream's frame index 0 (mod 2^32). */
  timestampBase: number;
  clockRate: number;
}

export class AvSync {
  private readonly lateness: number[] = [];
  private readonly offsets: number[] = [];

  constructor(
    private readonly timing: AudioTiming,
    private readonly frameMs: number,
  ) {}

  /**
   * The audio receiver was playing out RTP timestamp `rtpTimestamp` at `atMs`
   * (caller's clock). `nearIndex`: a frame index the sound is near (the last
   * decoded), to read timestamps that wrapped.
   */
  played(rtpTimestamp: number, atMs: number, nearIndex: number): void {
    const { timestampBase, clockRate } = this.timing;
    const wrapMs = (TWO_32 / clockRate) * 1000;
    const raw = (((rtpTimestamp - timestampBase) % TWO_32) + TWO_32) % TWO_32;
    const rawMs = (raw / clockRate) * 1000;
    const near = nearIndex * this.frameMs;
    const sourceMs = rawMs + Math.round((near - rawMs) / wrapMs) * wrapMs;
    this.lateness.push(atMs - sourceMs);
    if (this.lateness.length > LATENESS_SAMPLES) this.lateness.shift();
  }

  /** The sound's lateness now (ms): source instant t plays at t + this. Null before the sound has played. */
  get latenessMs(): number | null {
    return median(this.lateness);
  }

  /** Frame `index` went on screen at `atMs`: records audio playout time minus display time for its instant. */
  drawn(index: number, atMs: number): void {
    const lateness = this.latenessMs;
    if (lateness === null) return;
    this.offsets.push(index * this.frameMs + lateness - atMs);
    if (this.offsets.length > OFFSET_SAMPLES) this.offsets.shift();
  }

  /** Median over the last frames drawn of audio playout minus video display for the same instant, ms (positive: audio late); null: unknown. */
  get offsetMs(): number | null {
    return median(this.offsets);
  }
}

function median(xs: readonly number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
