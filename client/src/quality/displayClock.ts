/**
 * The display-to-frame mapping: a display clock at the source frame rate on which
 * every frame period i shows the newest decoded frame j <= i (j = i when frame i
 * came in time, an earlier frame repeated when it did not). The player draws what
 * this says, and scores each period with the PSNR of j against source frame i.
 *
 * When is frame i due? At delay + margin + i * frameMs, where delay is the latest
 * arrival seen, as lateness (decode time - index * frameMs): a frame late beyond all
 * before it raises the delay at once (a playout buffer that grows), and the delay
 * shrinks back slowly, so that a single late frame does not cost latency for ever.
 *
 * With sound (setSoundLateness), the sound sets the timeline instead: frame i is due
 * when the sound plays its instant, and no earlier than most recent frames were ready
 * (READY_SHARE of the last RECENT_FRAMES decoded, plus the margin). A frame later than
 * that is a repeat in its period and shows in the next: a single late frame, or a
 * stall of the machine, must not put every picture after it behind its sound (the
 * slow shrink above would keep them there for tens of seconds, beyond what the
 * sound may be held). Frames usually ready later than the sound plays their
 * instants are for the sound to wait: soundLeadMs says by how much
 * (player/soundDelay.ts).
 *
 * Pure: the caller passes the time, decoded frames, and calls advance() when
 * nextDueMs() has come.
 */
import type { DisplaySample } from '@pels/shared/protocol/playerHook';

export type { DisplaySample };

/** With sound, frames are due no earlier than this share of the recent ones was ready (the rest repeat a period). */
const READY_SHARE = 0.9;
/** The recent frames whose lateness that share is read from: about 5 s at 30 fps, so a short stall is under a tenth. */
const RECENT_FRAMES = 150;

export interface DisplayClockOptions {
  frameMs: number;
  /** How fast the delay shrinks after a late frame raised it. */
  decayMsPerS?: number;
  /** Slack over the latest arrival, for frames that come a little later still. */
  marginMs?: number;
  /** After a longer stop (the worker did not run), the clock resumes at the frame due now. */
  maxCatchUpMs?: number;
  /**
   * A frame this much earlier or later than its period starts a new timeline (the
   * stream restarted, or came back after an outage) instead of shifting the clock.
   */
  resyncMs?: number;
}

export class DisplayClock {
  private readonly frameMs: number;
  private readonly decayPerMs: number;
  private readonly marginMs: number;
  private readonly maxCatchUpMs: number;
  private readonly resyncMs: number;
  /** The delay was `peak` at time `peakAt`, and decays from there. */
  private peak = 0;
  private peakAt = 0;
  /** Next frame period to sample; undefined before the first frame. */
  private next: number | undefined;
  /** Decoded frames whose period has not begun, ascending. */
  private readonly ready: number[] = [];
  private shown: number | undefined;
  /** Frame i is not due before i * frameMs + this (the sound's lateness); null: no sound. */
  private soundLateness: number | null = null;
  /** The lateness of the last RECENT_FRAMES frames decoded, oldest first, and READY_SHARE of them were ready by `readyBy`. */
  private readonly recent: number[] = [];
  private readyBy = 0;

  constructor(options: DisplayClockOptions) {
    if (!(options.frameMs > 0)) throw new RangeError('frameMs must be positive');
    this.frameMs = options.frameMs;
    this.decayPerMs = (options.decayMsPerS ?? 10) / 1000;
    this.marginMs = options.marginMs ?? 10;
    this.maxCatchUpMs = options.maxCatchUpMs ?? 2000;
    this.resyncMs = options.resyncMs ?? 1000;
  }

  /**
   * Frame `index` was decoded at `nowMs`. Returns whether it may still be shown:
   * false when the frame on screen is already as new (the caller drops it).
   */
  decoded(index: number, nowMs: number): boolean {
    const lateness = nowMs - index * this.frameMs;
    const delay = this.delayAt(nowMs);
    if (this.next === undefined || Math.abs(lateness - delay) > this.resyncMs) {
      this.peak = lateness;
      this.peakAt = nowMs;
      this.next = index;
      this.ready.length = 0;
      this.shown = undefined;
      this.recent.length = 0;
    } else if (lateness > delay) {
      this.peak = lateness;
      this.peakAt = nowMs;
    }
    this.noteLateness(lateness);
    // A frame whose period passed still beats the older one on screen; an older one is useless.
    if (this.shown !== undefined && index <= this.shown) return false;
    let at = this.ready.length;
    while (at > 0 && this.ready[at - 1]! > index) at--;
    if (this.ready[at - 1] !== index) this.ready.splice(at, 0, index);
    return true;
  }

  /** The sound plays source instant t at t + `ms` (null: no sound): frames wait for it. */
  setSoundLateness(ms: number | null): void {
    this.soundLateness = ms;
  }

  /**
   * How far the sound runs ahead of the picture at `nowMs`: when most recent frames were
   * ready (READY_SHARE of them, plus the margin) minus when the sound plays their
   * instants, ms. Positive: frames are shown after their sound; negative:
   * they wait for it. Null without sound or before the first frame.
   */
  soundLeadMs(nowMs: number): number | null {
    if (this.soundLateness === null || this.next === undefined) return null;
    return this.readyBy + this.marginMs - this.soundLateness;
  }

  /** The frame periods that began by `nowMs`, oldest first. */
  advance(nowMs: number): DisplaySample[] {
    const out: DisplaySample[] = [];
    if (this.next === undefined) return out;
    if (nowMs - this.dueMs(this.next) > this.maxCatchUpMs) {
      // A display that did not run showed nothing: no samples for that time.
      this.next = Math.max(this.next, this.indexDueAt(nowMs));
    }
    for (let due = this.dueMs(this.next); due <= nowMs; due = this.dueMs(this.next)) {
      while (this.ready.length > 0 && this.ready[0]! <= this.next) this.shown = this.ready.shift();
      if (this.shown !== undefined) out.push({ t: due, index: this.next, shown: this.shown });
      this.next++;
    }
    return out;
  }

  /** When the next frame period begins; undefined before the first frame. */
  nextDueMs(): number | undefined {
    return this.next === undefined ? undefined : this.dueMs(this.next);
  }

  private delayAt(nowMs: number): number {
    return this.peak - this.decayPerMs * (nowMs - this.peakAt);
  }

  /** Records a decoded frame's lateness among the recent ones, and when READY_SHARE of those were ready. */
  private noteLateness(lateness: number): void {
    this.recent.push(lateness);
    if (this.recent.length > RECENT_FRAMES) this.recent.shift();
    const sorted = [...this.recent].sort((a, b) => a - b);
    this.readyBy = sorted[Math.ceil(READY_SHARE * sorted.length) - 1]!;
  }

  /** With sound: frame i is due at i * frameMs + this. */
  private soundTimeline(soundLateness: number): number {
    return Math.max(soundLateness, this.readyBy + this.marginMs);
  }

  /** Without sound, solves t = delayAt(t) + margin + index * frameMs for t; with sound, when it plays the frame's instant. */
  private dueMs(index: number): number {
    if (this.soundLateness !== null) return index * this.frameMs + this.soundTimeline(this.soundLateness);
    return (this.peak + this.decayPerMs * this.peakAt + this.marginMs + index * this.frameMs) / (1 + this.decayPerMs);
  }

  private indexDueAt(nowMs: number): number {
    if (this.soundLateness !== null) return Math.floor((nowMs - this.soundTimeline(this.soundLateness)) / this.frameMs);
    return Math.floor((nowMs * (1 + this.decayPerMs) - this.peak - this.decayPerMs * this.peakAt - this.marginMs) / this.frameMs);
  }
}
