import type { ProbeBoardView } from '../pels/probeBoard';
import { RenditionPolicy, type RenditionPolicyParams } from '../pels/renditionPolicy';
import type { RenditionState } from '../protocol/api';

/** A viewer's rendition for one frame set. */
export interface RenditionStep {
  /** The rendition whose frame the viewer gets from this set. */
  rendition: number;
  /** A rendition whose encoder is to make a keyframe (a new target: the switch waits for its keyframe); null: none. */
  keyframeRequest: number | null;
  /** A move up took effect: the rate is to be raised to at least this (a probe); null: no such move. */
  probeKbps: number | null;
}

/** Why a pin is refused, or null: a stream of `count` renditions has no other. */
export function pinError(rendition: number | 'auto', count: number): string | null {
  if (rendition === 'auto' || (Number.isInteger(rendition) && rendition >= 0 && rendition < count)) return null;
  return `no rendition ${rendition}: the stream has ${count} (0 to ${count - 1})`;
}

/**
 * One viewer's choice among the stream's renditions, frame set by frame set:
 * the policy (renditionPolicy.ts) names a target from the viewer's rate, or the
 * player pins one; the target rendition's encoder is asked for a keyframe
 * (once per target), and the switch happens at that rendition's next
 * keyframe, so the player's decoder never gets a frame whose references it
 * lacks, and no source frame is skipped or sent twice. A move up raises the
 * rate to what the target needs (a probe: on the lower rendition the viewer
 * sent less than its rate, so the rate was not measured that high). Pure: the
 * caller gives the time, the random source and the stream's probe board.
 */
export class RenditionSwitch {
  private readonly policy: RenditionPolicy;
  private baseKbps: (number | null)[];
  private fullKbps: (number | null)[];
  private pendingTarget: number | null = null;
  /** The player's choice; null: the policy's. */
  private pinned: number | null = null;
  /** The base layer's loss in the latest receiver report; spent by the switch it causes. */
  private baseLoss = 0;
  private switches = 0;
  private readonly timeMs: number[];
  private sinceMs: number;

  constructor(
    private readonly count: number,
    params: RenditionPolicyParams,
    random: () => number,
    board: ProbeBoardView,
    nowMs: number,
  ) {
    this.policy = new RenditionPolicy(params, count, 0, nowMs, random, board);
    this.baseKbps = new Array<number | null>(count).fill(null);
    this.fullKbps = new Array<number | null>(count).fill(null);
    this.timeMs = new Array<number>(count).fill(0);
    this.sinceMs = nowMs;
  }

  get current(): number {
    return this.policy.current;
  }

  /** Where the viewer's own keyframe requests (join, a broken base chain) go: the rendition it is moving to, else the one it gets. */
  get keyframeRendition(): number {
    return this.pendingTarget ?? this.policy.current;
  }

  /** A receiver report's loss p (what the rate controller stepped on) and the base layer's loss, when measured (0..1). */
  onFeedback(p: number, baseLoss: number | null): void {
    this.policy.onFeedback(p);
    if (baseLoss !== null) this.baseLoss = baseLoss;
  }

  /** Each rendition's measured base-layer and full rates (null while unknown). */
  setRates(baseKbps: readonly (number | null)[], fullKbps: readonly (number | null)[]): void {
    this.baseKbps = [...baseKbps];
    this.fullKbps = [...fullKbps];
  }

  /** The player's choice: this rendition from its next keyframe on, whatever the rate; 'auto': the policy's again. */
  pin(rendition: number | 'auto'): void {
    const error = pinError(rendition, this.count);
    if (error) throw new RangeError(error);
    this.pinned = rendition === 'auto' ? null : rendition;
  }

  /**
   * The rendition of this set the viewer gets. `keyframes[i]`: rendition i's
   * frame of the set is a keyframe. `settled`: the rate is a measured one (not
   * the controller's start-up), so the policy may change its target.
   */
  next(keyframes: readonly boolean[], rateKbps: number, settled: boolean, nowMs: number): RenditionStep {
    let keyframeRequest: number | null = null;
    let probeKbps: number | null = null;
    if (this.count > 1) {
      if (this.pinned !== null) keyframeRequest = this.retargetTo(this.pinned);
      else if (settled) keyframeRequest = this.retargetTo(this.policy.target(rateKbps, this.baseKbps, nowMs, this.baseLoss, this.fullKbps));
      // In start-up the rate is not measured yet: the full size, where every viewer starts (back there after a pin is released).
      else keyframeRequest = this.retargetTo(0);
    }
    const target = this.pendingTarget;
    if (target !== null && keyframes[target]) {
      this.account(nowMs);
      if (target < this.policy.current) probeKbps = this.policy.upKbps(target);
      this.policy.switched(target, nowMs);
      this.switches++;
      // That loss was the rendition left behind's: the next report speaks for this one.
      this.baseLoss = 0;
      this.pendingTarget = null;
    }
    return { rendition: this.policy.current, keyframeRequest, probeKbps };
  }

  state(nowMs: number): RenditionState {
    this.account(nowMs);
    return { current: this.policy.current, pending: this.pendingTarget, pinned: this.pinned, switches: this.switches, timeMs: [...this.timeMs], baseKbps: [...this.baseKbps] };
  }

  /** Moves the target; a new one's keyframe is asked for (returned), once. */
  private retargetTo(target: number): number | null {
    if (target === this.policy.current) {
      this.pendingTarget = null;
      return null;
    }
    if (target === this.pendingTarget) return null;
    this.pendingTarget = target;
    return target;
  }

  private account(nowMs: number): void {
    this.timeMs[this.policy.current]! += Math.max(0, nowMs - this.sinceMs);
    this.sinceMs = Math.max(this.sinceMs, nowMs);
  }
}
