import { RenditionPolicy, type RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import type { ProbeBoard } from '@pels/shared/pels/probeBoard';
import type { RenditionState } from '@pels/shared/protocol/api';
import type { LayeredFrame } from '../layering/layeredFrame';

/**
 * One viewer's choice among the stream's renditions, frame set by frame set:
 * the policy (renditionPolicy.ts) names a target from the viewer's rate; the
 * target rendition's encoder is asked for a keyframe (once per target), and
 * the switch happens at that rendition's next keyframe, so the player's
 * decoder never gets a frame whose references it lacks, and no source frame
 * is skipped or sent twice. A move up raises the rate to what the target
 * needs (a probe: on the lower rendition the viewer sent less than its rate,
 * so the rate was not measured that high). A rendition pinned by the viewer
 * (its player's quality menu) is the target whatever the rate, until released.
 */

export class RenditionSwitch {
  private readonly policy: RenditionPolicy;
  private baseKbps: (number | null)[];
  private fullKbps: (number | null)[];
  private pendingTarget: number | null = null;
  /** The rendition the viewer asked to keep; null: the policy chooses. */
  private pinned: number | null = null;
  /** The base layer's loss in the latest receiver report; spent by the switch it causes. */
  private baseLoss = 0;
  private switches = 0;
  private readonly timeMs: number[];
  private sinceMs: number;

  constructor(
    private readonly count: number,
    params: RenditionPolicyParams,
    /** Asks a rendition's encoder for a keyframe (throttled by the stream). */
    private readonly requestKeyframe: (rendition: number) => void,
    /** Raises the viewer's rate to at least kbps (the control core's probe). */
    private readonly probe: (kbps: number) => void,
    nowMs: number,
    /** The stream's, shared with its other viewers; absent: a board of the viewer's own. */
    board?: ProbeBoard,
  ) {
    this.policy = new RenditionPolicy(params, count, 0, nowMs, Math.random, board);
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

  /** Holds one rendition whatever the rate (switching at its next keyframe), or gives the choice back to the policy. */
  pin(rendition: number | 'auto'): void {
    if (rendition !== 'auto' && !(Number.isInteger(rendition) && rendition >= 0 && rendition < this.count)) {
      throw new RangeError(`no rendition ${rendition}: the stream has ${this.count} (0 to ${this.count - 1})`);
    }
    this.pinned = rendition === 'auto' ? null : rendition;
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

  /**
   * The frame of this set to send, by rendition. `settled`: the rate is a
   * measured one (not the controller's start-up), so targets may change.
   */
  pick(frames: readonly LayeredFrame[], rateKbps: number, settled: boolean, nowMs: number): LayeredFrame | undefined {
    if (this.count > 1) {
      if (this.pinned !== null) this.aim(this.pinned);
      else if (settled) this.aim(this.policy.target(rateKbps, this.baseKbps, nowMs, this.baseLoss, this.fullKbps));
      // In start-up the rate is not measured yet: the full size, where every viewer starts (back there after a pin is released).
      else this.aim(0);
    }
    const target = this.pendingTarget;
    if (target !== null && frames[target]?.keyframe) {
      this.account(nowMs);
      const upKbps = target < this.policy.current ? this.policy.upKbps(target) : null;
      if (upKbps !== null) this.probe(upKbps);
      this.policy.switched(target, nowMs);
      this.switches++;
      // That loss was the rendition left behind's: the next report speaks for this one.
      this.baseLoss = 0;
      this.pendingTarget = null;
    }
    return frames[this.policy.current];
  }

  state(nowMs: number): RenditionState {
    this.account(nowMs);
    return {
      current: this.policy.current,
      pending: this.pendingTarget,
      pinned: this.pinned,
      switches: this.switches,
      timeMs: [...this.timeMs],
      baseKbps: [...this.baseKbps],
    };
  }

  /** Moves to `target` at its next keyframe (asked for once), or stays. */
  private aim(target: number): void {
    if (target === this.policy.current) {
      this.pendingTarget = null;
    } else if (target !== this.pendingTarget) {
      this.pendingTarget = target;
      this.requestKeyframe(target);
    }
  }

  private account(nowMs: number): void {
    this.timeMs[this.policy.current]! += Math.max(0, nowMs - this.sinceMs);
    this.sinceMs = Math.max(this.sinceMs, nowMs);
  }
}
