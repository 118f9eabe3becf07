/**
 * The sound's side of lip sync, pure. The display clock holds frames back for
 * the sound; when frames become ready later than the sound plays their
 * instants (a slow decoder, a busy machine), it is the sound that must wait.
 * This sets how long the audio receiver holds the sound: its jitter buffer
 * target (RTCRtpReceiver.jitterBufferTarget, a minimum on the buffer's delay).
 *
 * Inputs: the lead (how far the sound runs ahead of the frames, from the
 * display clock) and the receiver's jitter buffer delay now. Their sum is the
 * buffer the sound needs to play with the picture, and it stays put while the
 * receiver stretches its sound towards a new target (the lead falls as the
 * buffer grows), so steering to it does not overshoot. Up by at most
 * UP_STEP_MS an update; down by half of what is held beyond the need, at least
 * DOWN_STEP_MS, within [0, MAX_SOUND_DELAY_MS]. The lead is already read over
 * the last few seconds of frames (DisplayClock: READY_SHARE of RECENT_FRAMES),
 * so a few good frames among slow ones do not give the hold up; a fixed 20 ms
 * an update held a stall's 400 ms for 20 s after the picture had caught up,
 * every frame waiting that long for its sound (the display stage).
 */

/**
 * The most the sound is held for the picture: a picture later than this is
 * stalled rather than slow, and frames held longer for the sound would overflow
 * the display's queue (one second of frames).
 */
export const MAX_SOUND_DELAY_MS = 400;
/**
 * The least the receiver holds the sound, whatever the picture needs. Each
 * sound packet comes twice, the copy a packet time (20 ms) after the original
 * (the server's streamAudio.ts); a receiver whose own buffer is shorter than
 * the copy's lateness plays a lost original's copy too late and conceals it.
 * Its own buffer runs that short on a quiet path and a fast machine, where no
 * hold for the picture lengthens it (docs/benchmarks.md "Sound under wire loss").
 */
export const SOUND_BUFFER_FLOOR_MS = 80;
const UP_STEP_MS = 100;
const DOWN_STEP_MS = 20;
/** The sound ahead of the frames by more than this is delayed (aim: +-20 ms). */
const AHEAD_MS = 10;
/** Frames waiting for a held sound by more than this let the hold shrink. */
const WAITING_MS = 30;

export class SoundDelay {
  private target = 0;

  /** The hold for the picture, ms; 0: none. */
  get targetMs(): number {
    return this.target;
  }

  /** The receiver's jitter buffer target: the hold, at least the floor. */
  get receiverTargetMs(): number {
    return Math.max(SOUND_BUFFER_FLOOR_MS, this.target);
  }

  /**
   * One measure, about once a second: `leadMs` the sound's lead over the
   * frames (the median of the last second's readings), `bufferMs` the
   * receiver's jitter buffer delay over the last interval (null when its
   * playout stalled meanwhile). Returns the new hold when it changes (0: none), else null.
   */
  update(leadMs: number | null, bufferMs: number | null): number | null {
    if (leadMs === null || bufferMs === null || !Number.isFinite(leadMs) || !Number.isFinite(bufferMs)) return null;
    const needed = Math.min(MAX_SOUND_DELAY_MS, Math.max(0, bufferMs + leadMs));
    let next = this.target;
    if (leadMs > AHEAD_MS && needed > this.target) {
      next = Math.min(needed, Math.max(this.target, bufferMs) + UP_STEP_MS);
    } else if (leadMs < -WAITING_MS && this.target > 0) {
      next = Math.max(needed, this.target - Math.max(DOWN_STEP_MS, (this.target - needed) / 2));
    }
    next = Math.round(next);
    if (next === this.target) return null;
    this.target = next;
    return next;
  }
}
