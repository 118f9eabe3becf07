/**
 * The player's screen: decoded frames wait here until their frame period on the
 * display clock (quality/displayClock.ts), and each period draws the frame the
 * clock says, so that what is scored is what was shown.
 */
import { DisplayClock, type DisplaySample } from '../quality/displayClock';
import type { CanvasRenderer } from './renderer';

/** Decoded frames held ahead of the display at most; more means the clock stalled, and the oldest go. */
const MAX_HELD = 30;

export interface FrameDisplayOptions {
  frameMs: number;
  renderer: CanvasRenderer;
  /** Every frame period, in order, as it begins. */
  onSamples(samples: DisplaySample[]): void;
  /** A new frame went on screen (index) at `atMs`. */
  onDrawn?(index: number, atMs: number): void;
  onError(message: string): void;
}

export class FrameDisplay {
  private readonly clock: DisplayClock;
  private readonly held = new Map<number, VideoFrame>();
  private onScreen: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly opts: FrameDisplayOptions) {
    this.clock = new DisplayClock({ frameMs: opts.frameMs });
  }

  /** The sound plays source instant t at t + `ms` (null: no sound): frames wait for it. */
  setSoundLateness(ms: number | null): void {
    this.clock.setSoundLateness(ms);
    this.schedule();
  }

  /** How far the sound runs ahead of the frames (DisplayClock.soundLeadMs). */
  soundLeadMs(nowMs: number): number | null {
    return this.clock.soundLeadMs(nowMs);
  }

  /** Takes ownership of `frame`, decoded frame `index`. */
  decoded(index: number, frame: VideoFrame, nowMs: number): void {
    if (!this.clock.decoded(index, nowMs) || this.held.has(index)) {
      frame.close();
      return;
    }
    this.held.set(index, frame);
    if (this.held.size > MAX_HELD) this.closeUpTo(Math.min(...this.held.keys()));
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const due = this.clock.nextDueMs();
    if (due === undefined) return;
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - performance.now()));
  }

  private tick(): void {
    const now = performance.now();
    const samples = this.clock.advance(now);
    const last = samples.at(-1);
    if (last && last.shown !== this.onScreen) {
      const frame = this.held.get(last.shown);
      if (frame) {
        try {
          this.opts.renderer.draw(frame);
          this.opts.onDrawn?.(last.shown, now);
        } catch (err) {
          this.opts.onError(`draw: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      this.onScreen = last.shown;
      this.closeUpTo(last.shown);
    }
    if (samples.length) this.opts.onSamples(samples);
    this.schedule();
  }

  /** The canvas keeps the image: frames up to the one on screen are no longer needed. */
  private closeUpTo(index: number): void {
    for (const [i, frame] of this.held) {
      if (i > index) continue;
      frame.close();
      this.held.delete(i);
    }
  }
}
