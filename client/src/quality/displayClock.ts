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
 * With sound, no frame is due before its instant plays out (setSoundLateness): the
 * frame waits for the sound. The other way round, frames ready later than the sound
 * plays their instants, is for the sound to wait: soundLeadMs says by how much
 * (player/soundDelay.ts).
 *
 * Pure: the caller passes the time, decoded frames, and calls advance() when
 * nextDueMs() has come.
 */
import type { DisplaySample } from '@pels/shared/protocol/playerHook';

export type { DisplaySample };

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
    } else if (lateness > delay) {
      this.peak = lateness;
      this.peakAt = nowMs;
    }
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
   * How far the sound runs ahead of the picture at `nowMs`: when frames are due by the
   * video alone (the latest arrival, decayed, plus the margin) minus when the sound
   * plays their instants, ms. Positive: frames are shown after their sound; negative:
   * they wait for it. Null without sound or before the first frame.
   */
  soundLeadMs(nowMs: number): number | null {
    if (this.soundLateness === null || this.next === undefined) return null;
    return this.delayAt(nowMs) + this.marginMs - this.soundLateness;
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

  /** Solves t = delayAt(t) + margin + index * frameMs for t; no earlier than the sound plays the frame's instant. */
  private dueMs(index: number): number {
    const video = (this.peak + this.decayPerMs * this.peakAt + this.marginMs + index * this.frameMs) / (1 + this.decayPerMs);
    return this.soundLateness === null ? video : Math.max(video, index * this.frameMs + this.soundLateness);
  }

  private indexDueAt(nowMs: number): number {
    const video = Math.floor((nowMs * (1 + this.decayPerMs) - this.peak - this.decayPerMs * this.peakAt - this.marginMs) / this.frameMs);
    return this.soundLateness === null ? video : Math.min(video, Math.floor((nowMs - this.soundLateness) / this.frameMs));
  }
}
