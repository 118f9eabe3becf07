import { TEMPORAL_PATTERN, isBase, type FrameInfo } from './frame';

export interface FrameSelectionParams {
  /**
   * Depth of the byte budget, in ms at the current rate: how much unspent
   * budget carries over, and how far base frames (keyframes) may overdraw it.
   * It should span a few periods of 4 frames.
   */
  burstMs: number;
}

export const FRAME_SELECTION_DEFAULTS: Readonly<FrameSelectionParams> = { burstMs: 500 };

/** Weight of a new frame in the per-layer size and frame-interval estimates. */
const EWMA_WEIGHT = 1 / 8;

/** Running size of one layer's frames. */
class SizeEstimate {
  /** 0: nothing seen yet. */
  mean = 0;
  private deviation = 0;

  add(bytes: number): void {
    if (this.mean === 0) {
      this.mean = bytes;
      return;
    }
    this.deviation += EWMA_WEIGHT * (Math.abs(bytes - this.mean) - this.deviation);
    this.mean += EWMA_WEIGHT * (bytes - this.mean);
  }

  /** Mean + 2 mean deviations: sizes vary, and reserving the mean would lose the TID 1 frame whenever it comes out larger. */
  get likelyMax(): number {
    return this.mean + 2 * this.deviation;
  }
}

/**
 * Online frame selection for one viewer: which frames fit the MKC rate.
 *
 * Budget: a token bucket filled at the rate r, holding +-burstMs of it. Base
 * frames are always sent and always paid for (MKC's floor is the base rate),
 * so they can overdraw it; enhancement frames are sent only as the rules below
 * allow. The bucket's floor forgets older debt, so a rate below the base rate
 * for a while does not starve the enhancement layers long after.
 *
 * Dependencies (libvpx 0,2,1,2): TID 1 and the first TID 2 frame reference the
 * base (LAST); the second TID 2 frame references GOLDEN, which the period's
 * TID 1 frame updates. A frame is never sent when a frame it references was
 * not: a non-sync frame needs the last GOLDEN update (a keyframe or TID 1
 * frame) to have been sent. Base frames are always sent, so nothing ever
 * follows a missing base frame.
 *
 * Importance: TID 1 before TID 2. Decisions are online, so a TID 2 frame is
 * sent only if the budget left after it still covers the next TID 1 frame and
 * any base frame before it (running size estimates), less what the bucket
 * gains until then. A TID 1 frame may overdraw the budget by one mean TID 1
 * frame: TID 2 frames need a positive balance above their reserve, so they
 * repay that debt, and frame-size noise costs TID 2 frames rather than TID 1.
 */
export class FrameSelector {
  private readonly params: FrameSelectionParams;
  private tokens = 0;
  /** Since when the bucket has been below its floor; undefined: it is not. */
  private belowFloorSinceMs: number | undefined;
  /** Undefined until the first frame, when the bucket starts full, as token buckets do. */
  private lastMs: number | undefined;
  private frameIntervalMs = 0;
  /** Delta base frames (keyframes are rare one-offs) and TID 1 frames: what a TID 2 frame must leave room for. */
  private readonly baseSize = new SizeEstimate();
  private readonly tid1Size = new SizeEstimate();
  /** Frames since the last base frame: the position in the period of 4. */
  private position = 0;
  private tid1SinceBase = false;
  /** Whether the receiver's GOLDEN buffer matches the encoder's (its last update was sent). */
  private goldenSent = false;

  constructor(params: Partial<FrameSelectionParams> = {}) {
    this.params = { ...FRAME_SELECTION_DEFAULTS, ...params };
    if (!(this.params.burstMs > 0 && Number.isFinite(this.params.burstMs))) throw new RangeError(`burstMs must be a finite number > 0; got ${this.params.burstMs}`);
  }

  /** Decides one frame, in encoder order; true: send it. */
  select(frame: FrameInfo, nowMs: number, rateKbps: number): boolean {
    if (!(Number.isFinite(frame.bytes) && frame.bytes >= 0)) throw new RangeError(`frame bytes must be a finite number >= 0; got ${frame.bytes}`);
    if (!(Number.isFinite(rateKbps) && rateKbps >= 0)) throw new RangeError(`rateKbps must be a finite number >= 0; got ${rateKbps}`);
    if (!Number.isFinite(nowMs)) throw new RangeError(`nowMs must be finite; got ${nowMs}`);
    this.refill(nowMs, rateKbps);
    const send = this.decide(frame, rateKbps);
    if (send) this.tokens -= frame.bytes;
    this.learn(frame);
    return send;
  }

  private decide(frame: FrameInfo, rateKbps: number): boolean {
    if (isBase(frame)) {
      this.position = 0;
      this.tid1SinceBase = false;
      if (frame.keyframe) this.goldenSent = true;
      return true;
    }
    this.position++;
    if (frame.temporalId === 1) {
      const referencesSent = (frame.layerSync ?? true) || this.goldenSent;
      // The overdraw allowance is capped by the bucket depth: otherwise at a rate far below one TID 1 frame per period the allowance alone would let TID 1 frames through.
      const allowance = Math.min(this.tid1Size.mean, this.depth(rateKbps));
      const send = referencesSent && this.tokens - frame.bytes >= -allowance;
      this.tid1SinceBase = true;
      // TID 1 frames update GOLDEN: a skipped one leaves the receiver's GOLDEN stale.
      this.goldenSent = send;
      return send;
    }
    const sync = frame.layerSync ?? !this.tid1SinceBase;
    if (!sync && !this.goldenSent) return false;
    return this.tokens - frame.bytes >= Math.max(0, this.reserveForTid1(rateKbps));
  }

  /** Budget the frames up to the next TID 1 frame need (base frames are sent anyway) beyond what the bucket gains meanwhile. */
  private reserveForTid1(rateKbps: number): number {
    const bytesPerFrameInterval = (rateKbps * this.frameIntervalMs) / 8;
    let need = 0;
    for (let ahead = 1; ahead <= TEMPORAL_PATTERN.length; ahead++) {
      const tid = TEMPORAL_PATTERN[(this.position + ahead) % TEMPORAL_PATTERN.length]!;
      if (tid === 0) need += this.baseSize.likelyMax;
      if (tid === 1) return need + this.tid1Size.likelyMax - ahead * bytesPerFrameInterval;
    }
    return need;
  }

  private depth(rateKbps: number): number {
    return (rateKbps * this.params.burstMs) / 8;
  }

  private refill(nowMs: number, rateKbps: number): void {
    const depth = this.depth(rateKbps);
    if (this.lastMs === undefined) this.tokens = depth;
    else if (nowMs > this.lastMs) {
      const dt = nowMs - this.lastMs;
      this.tokens += (rateKbps * dt) / 8;
      this.frameIntervalMs = this.frameIntervalMs === 0 ? dt : this.frameIntervalMs + EWMA_WEIGHT * (dt - this.frameIntervalMs);
    }
    this.lastMs = Math.max(nowMs, this.lastMs ?? nowMs);
    this.tokens = Math.min(depth, this.tokens);
    // Debt past the floor is forgotten only once it has lasted the bucket's depth in time: a rate below the base rate
    // for a while, not one large frame (a keyframe every 2 s can be as large as the bucket; forgiving it at once overdrew the rate by 4-10%).
    if (this.tokens >= -depth) this.belowFloorSinceMs = undefined;
    else if (this.belowFloorSinceMs === undefined) this.belowFloorSinceMs = this.lastMs;
    else if (this.lastMs - this.belowFloorSinceMs >= this.params.burstMs) {
      this.tokens = -depth;
      this.belowFloorSinceMs = undefined;
    }
  }

  private learn(frame: FrameInfo): void {
    if (frame.keyframe) return;
    if (frame.temporalId === 0) this.baseSize.add(frame.bytes);
    if (frame.temporalId === 1) this.tid1Size.add(frame.bytes);
  }
}
