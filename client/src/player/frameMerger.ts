/**
 * The player's timeline: merges the frames of the three color streams into one
 * decode order by RTP timestamp and decides, frame by frame, whether to decode it.
 *
 * Pure logic with no Web APIs: the caller passes the time and acts on the decisions.
 * Timestamps are 32-bit RTP timestamps (90 kHz); they are unwrapped to a monotonic
 * number line before use.
 *
 * Rules:
 * - A frame is released when it is the next one in order (timestamp = last + ticksPerFrame,
 *   within half a frame, for sources whose frame spacing is not an exact tick count), or once
 *   the oldest pending frame has waited the playout deadline (releasing it means releasing
 *   everything before it).
 * - A frame at or before the playout position arrives too late: dropped.
 * - Until a keyframe is released (at start and after a decoder error) every other frame is
 *   skipped, since its references are not in the decoder: this is the "last base frame was
 *   not decodable" case, because a base frame is only ever skipped while waiting.
 * - A TID 2 frame may reference GOLDEN, which a TID 1 frame refreshes. When a TID 1 frame,
 *   or a frame of unknown layer (a gap in the timeline), is missing since the last base
 *   frame, GOLDEN may be stale, so TID 2 frames are skipped until the next base frame or
 *   a decoded TID 1 frame (which refreshes GOLDEN from a valid LAST).
 * - A base frame references the previous one (LAST): when a missing frame's slot is a
 *   base slot (the encoder's 0,2,1,2 pattern repeats every 4 frames, so base slots are
 *   those in the phase of the last base frame seen), nothing decodes until the next
 *   keyframe. Decoding on would not fail: it would show garbage.
 * - Every keyframe starts the pattern again, so a frame whose layer does not match its
 *   slot's place in the pattern comes after a keyframe that never arrived: nothing decodes
 *   until the next keyframe.
 * - A jump of more than `maxJumpTicks` either way is a new timeline (source restart or
 *   a long outage): the player resynchronizes on the next keyframe.
 * - The playout deadline adapts like a jitter buffer. Behind a PELS bottleneck the
 *   enhancement colors wait in lower-priority queues, so their frames arrive after
 *   the base frames that follow them. A frame that arrives after its slot was given
 *   up raises the deadline by how late it came (up to `maxPlayoutDeadlineMs`); the
 *   deadline then decays slowly back toward `playoutDeadlineMs`.
 * - A missing frame the server retransmits (green's base frames in PELS, every frame with
 *   `nack`) may still come after a NACK round trip: while the gap before the oldest
 *   pending frame holds such a slot, the deadline is longer by the retransmission wait
 *   (see retransmission.ts).
 * - With sound (setSoundPlayout), a gap of enhancement frames only is given up once the
 *   sound has played the first missing frame's instant: it could only be shown after its
 *   sound, and the frames behind it would wait past theirs. Behind a congested PELS router
 *   red never comes and yellow comes late (its queue holds it for hundreds of ms), so the
 *   adaptive deadline, raised by those late frames, held every base frame as long: pictures
 *   a second behind their sound. A frame that comes after its sound played does not raise
 *   the deadline either. A gap with a base slot waits as before: giving it up costs every
 *   frame until the next keyframe, so there the sound is held instead (soundDelay.ts).
 */

export type TemporalId = 0 | 1 | 2;

export interface MergerFrame<P> {
  /** RTP timestamp as received, 0 .. 2^32-1. */
  rtpTimestamp: number;
  keyframe: boolean;
  temporalId: TemporalId;
  payload: P;
}

export type SkipReason = 'awaiting-keyframe' | 'missing-reference';

/** Which missing frames the server retransmits: none, those of base-layer slots, or all. */
export type RetransmittedSlots = 'none' | 'base' | 'all';

/** `timestamp` is the unwrapped RTP timestamp. */
export type MergerDecision<P> =
  | { action: 'decode'; timestamp: number; frame: MergerFrame<P> }
  | { action: 'skip'; timestamp: number; frame: MergerFrame<P>; reason: SkipReason }
  | { action: 'late'; timestamp: number; frame: MergerFrame<P> };

export interface FrameMergerOptions {
  /** RTP ticks between consecutive frames (3000 at 30 fps). */
  ticksPerFrame: number;
  /** How long the oldest pending frame may wait for the frames before it. */
  playoutDeadlineMs?: number;
  /** A timestamp jump larger than this (either way) starts a new timeline. */
  maxJumpTicks?: number;
  /** Upper bound of the adaptive deadline. */
  maxPlayoutDeadlineMs?: number;
}

/**
 * When the sound plays the instant of an (unwrapped) RTP timestamp, on the caller's clock;
 * null while that is not known.
 */
export type SoundPlayout = (timestamp: number) => number | null;

export const DEFAULT_PLAYOUT_DEADLINE_MS = 80;
const DEFAULT_MAX_PLAYOUT_DEADLINE_MS = 1500;
/** Frames per temporal-layer period (the encoder's pattern 0,2,1,2). */
export const LAYER_PERIOD = 4;
const mod = (a: number, n: number): number => ((a % n) + n) % n;
/** The layer of the frame `phase` slots after a base frame, in the pattern 0,2,1,2 (every keyframe starts it again). */
const patternTid = (phase: number): TemporalId => (phase === 0 ? 0 : phase === 2 ? 1 : 2);
/** Added to the measured lateness, so a frame as late as the last one makes it. */
const LATE_MARGIN_MS = 20;
/** Per in-order frame, the deadline moves this share of the way back to its floor (about 30 s at 30 fps). */
const DEADLINE_DECAY = 1 / 1000;
const DEFAULT_MAX_JUMP_TICKS = 3 * 90_000;

const TWO_32 = 2 ** 32;
const TWO_31 = 2 ** 31;

/** Maps 32-bit RTP timestamps onto a monotonic line, taking the nearest candidate to the previous one. */
export class RtpTimestampUnwrapper {
  private last: number | undefined;

  unwrap(rtpTimestamp: number): number {
    const ts = rtpTimestamp >>> 0;
    if (this.last === undefined) {
      this.last = ts;
      return ts;
    }
    let delta = (ts - (this.last % TWO_32) + TWO_32) % TWO_32;
    if (delta >= TWO_31) delta -= TWO_32;
    this.last += delta;
    return this.last;
  }
}

interface Pending<P> {
  timestamp: number;
  arrivalMs: number;
  frame: MergerFrame<P>;
}

export class FrameMerger<P> {
  private readonly ticksPerFrame: number;
  private readonly minDeadlineMs: number;
  private readonly maxDeadlineMs: number;
  private deadlineMs: number;
  /** Slots (timestamp / ticksPerFrame) given up at a deadline, and when: a late frame's lateness. */
  private readonly gaveUp = new Map<number, number>();
  private readonly maxJumpTicks: number;
  private readonly unwrapper = new RtpTimestampUnwrapper();
  /** Sorted by timestamp, ascending. */
  private readonly pending: Pending<P>[] = [];
  /** Timestamp of the last released frame; undefined before the first keyframe of a timeline. */
  private position: number | undefined;
  private awaitingKeyframe = true;
  /** GOLDEN may be stale: a TID 1 or unknown frame is missing since the last base frame. */
  private goldenSuspect = false;
  /** Slot of the last base frame modulo the layer period: where base frames fall. */
  private basePhase: number | undefined;
  private retransmitted: RetransmittedSlots = 'none';
  private retransmissionWaitMs = 0;
  private soundPlayout: SoundPlayout | null = null;

  constructor(options: FrameMergerOptions) {
    if (!(options.ticksPerFrame > 0)) throw new RangeError('ticksPerFrame must be positive');
    this.ticksPerFrame = options.ticksPerFrame;
    this.minDeadlineMs = options.playoutDeadlineMs ?? DEFAULT_PLAYOUT_DEADLINE_MS;
    this.maxDeadlineMs = Math.max(this.minDeadlineMs, options.maxPlayoutDeadlineMs ?? DEFAULT_MAX_PLAYOUT_DEADLINE_MS);
    this.deadlineMs = this.minDeadlineMs;
    this.maxJumpTicks = options.maxJumpTicks ?? DEFAULT_MAX_JUMP_TICKS;
  }

  /** Adds a received frame; returns the frames this releases, in decode order. */
  push(frame: MergerFrame<P>, nowMs: number): MergerDecision<P>[] {
    const timestamp = this.unwrapper.unwrap(frame.rtpTimestamp);
    const out: MergerDecision<P>[] = [];
    if (this.position !== undefined && Math.abs(timestamp - this.position) > this.maxJumpTicks) {
      this.release(nowMs, true, out);
      this.position = undefined;
      this.awaitingKeyframe = true;
    }
    if ((this.position !== undefined && timestamp <= this.position) || this.pending.some((p) => p.timestamp === timestamp)) {
      const gaveUpAt = this.gaveUp.get(Math.round(timestamp / this.ticksPerFrame));
      if (gaveUpAt !== undefined && !this.soundPlayed(timestamp, nowMs)) {
        this.deadlineMs = Math.min(this.maxDeadlineMs, this.deadlineMs + (nowMs - gaveUpAt) + LATE_MARGIN_MS);
        this.gaveUp.clear(); // one raise per give-up: the other frames of it were as late or less
      }
      out.push({ action: 'late', timestamp, frame });
      return out;
    }
    let i = this.pending.length;
    while (i > 0 && this.pending[i - 1]!.timestamp > timestamp) i--;
    this.pending.splice(i, 0, { timestamp, arrivalMs: nowMs, frame });
    this.release(nowMs, false, out);
    return out;
  }

  /** Releases the frames whose playout deadline has passed. */
  poll(nowMs: number): MergerDecision<P>[] {
    const out: MergerDecision<P>[] = [];
    this.release(nowMs, false, out);
    return out;
  }

  /** When poll() should next be called, if frames are waiting. */
  nextDeadlineMs(): number | undefined {
    const head = this.pending[0];
    if (!head) return undefined;
    return this.giveUpAtMs(head.timestamp);
  }

  /** After a decoder error: nothing decodes until the next keyframe. */
  awaitKeyframe(): void {
    this.awaitingKeyframe = true;
  }

  /** Nothing decodes until a keyframe comes (at start, after a decoder error or a missing base frame). */
  get isAwaitingKeyframe(): boolean {
    return this.awaitingKeyframe;
  }

  /** Missing frames of these slots wait `waitMs` longer for their retransmission. */
  setRetransmission(slots: RetransmittedSlots, waitMs: number): void {
    this.retransmitted = slots;
    this.retransmissionWaitMs = Math.max(0, waitMs);
  }

  /** With sound: when it plays each frame's instant (null: no sound), for gaps not worth waiting for. */
  setSoundPlayout(playout: SoundPlayout | null): void {
    this.soundPlayout = playout;
  }

  /** The current (adaptive) playout deadline. */
  get playoutDeadlineMs(): number {
    return this.deadlineMs;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  private oldestArrivalMs(): number {
    let oldest = Infinity;
    for (const p of this.pending) oldest = Math.min(oldest, p.arrivalMs);
    return oldest;
  }

  private release(nowMs: number, force: boolean, out: MergerDecision<P>[]): void {
    while (this.pending.length > 0) {
      const head = this.pending[0]!;
      if (this.awaitingKeyframe && !head.frame.keyframe) {
        // Useless without a keyframe before it; the position stays so that an older keyframe still counts.
        this.pending.shift();
        out.push({ action: 'skip', timestamp: head.timestamp, frame: head.frame, reason: 'awaiting-keyframe' });
        continue;
      }
      const inOrder = this.position === undefined || head.timestamp - this.position < 1.5 * this.ticksPerFrame;
      const due = force || inOrder || this.awaitingKeyframe || nowMs >= this.giveUpAtMs(head.timestamp);
      if (!due) return;
      this.pending.shift();
      if (inOrder) this.deadlineMs -= (this.deadlineMs - this.minDeadlineMs) * DEADLINE_DECAY;
      else if (!force && this.position !== undefined) this.rememberGivenUp(this.position, head.timestamp, nowMs);
      out.push(this.decide(head, inOrder));
    }
  }

  /** When the frames missing before the oldest pending one are given up: at its deadline, or once their sound has played. */
  private giveUpAtMs(timestamp: number): number {
    const byDeadline = this.oldestArrivalMs() + this.headDeadlineMs(timestamp);
    if (this.position === undefined || this.baseSlotBetween(this.position, timestamp)) return byDeadline;
    const firstMissingPlays = this.soundPlayout?.(this.position + this.ticksPerFrame) ?? null;
    return firstMissingPlays === null ? byDeadline : Math.min(byDeadline, firstMissingPlays);
  }

  /** Whether the sound has played the instant of `timestamp` by `nowMs` (false without sound). */
  private soundPlayed(timestamp: number, nowMs: number): boolean {
    const plays = this.soundPlayout?.(timestamp) ?? null;
    return plays !== null && nowMs > plays;
  }

  /** The deadline of the oldest pending frame: longer while a retransmitted slot is missing before it. */
  private headDeadlineMs(timestamp: number): number {
    if (this.retransmitted === 'none' || this.position === undefined) return this.deadlineMs;
    const waits = this.retransmitted === 'all' || this.baseSlotBetween(this.position, timestamp);
    return this.deadlineMs + (waits ? this.retransmissionWaitMs : 0);
  }

  private rememberGivenUp(fromTs: number, toTs: number, nowMs: number): void {
    const first = Math.round(fromTs / this.ticksPerFrame) + 1;
    const last = Math.round(toTs / this.ticksPerFrame) - 1;
    for (let slot = first; slot <= last && slot - first < 64; slot++) this.gaveUp.set(slot, nowMs);
    // Frames later than a few seconds are not worth waiting for: forget old give-ups.
    while (this.gaveUp.size > 256) this.gaveUp.delete(this.gaveUp.keys().next().value!);
  }

  private slot(timestamp: number): number {
    return Math.round(timestamp / this.ticksPerFrame);
  }

  /** Whether a base frame's slot lies strictly between two timestamps. */
  private baseSlotBetween(fromTs: number, toTs: number): boolean {
    if (this.basePhase === undefined) return false;
    for (let s = this.slot(fromTs) + 1; s < this.slot(toTs); s++) if (mod(s, LAYER_PERIOD) === this.basePhase) return true;
    return false;
  }

  private decide(p: Pending<P>, inOrder: boolean): MergerDecision<P> {
    const { frame, timestamp } = p;
    const previous = this.position;
    this.position = timestamp;
    if (!inOrder) this.goldenSuspect = true;
    if (!inOrder && !frame.keyframe && previous !== undefined && this.baseSlotBetween(previous, timestamp)) {
      this.awaitingKeyframe = true;
      return { action: 'skip', timestamp, frame, reason: 'missing-reference' };
    }
    if (!frame.keyframe && this.basePhase !== undefined && frame.temporalId !== patternTid(mod(this.slot(timestamp) - this.basePhase, LAYER_PERIOD))) {
      // Out of the pattern's phase: a keyframe restarted it and never arrived (a requested one, or at a rendition
      // switch the next rendition's, whose pattern runs in another phase). Its references are not in the decoder,
      // and the missing slot did not look like a base one, so nothing else caught it.
      this.awaitingKeyframe = true;
      return { action: 'skip', timestamp, frame, reason: 'missing-reference' };
    }
    if (frame.keyframe || frame.temporalId === 0) this.basePhase = mod(this.slot(timestamp), LAYER_PERIOD);
    if (frame.keyframe) {
      this.awaitingKeyframe = false;
      this.goldenSuspect = false;
    } else if (frame.temporalId === 2 && this.goldenSuspect) {
      return { action: 'skip', timestamp, frame, reason: 'missing-reference' };
    } else if (frame.temporalId !== 2) {
      this.goldenSuspect = false;
    }
    return { action: 'decode', timestamp, frame };
  }
}
