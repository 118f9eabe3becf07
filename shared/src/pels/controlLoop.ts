import { FreshnessGuard, routerEnhancementLoss, type FeedbackEvent, type FeedbackVerdict } from './feedback';
import { GAMMA_DEFAULTS, GammaController, type GammaParams } from './gammaController';
import { MkcController, type MkcParams } from './mkc';

/** What a flow policy reads from a viewer's control loop. */
export interface ControlState {
  readonly rateKbps: number;
  readonly gamma: number;
}

export interface ControlLoopParams {
  mkc: MkcParams;
  gamma?: GammaParams;
}

/** Rate changes kept for eq. 8's r(k - D); a few seconds of steps covers any round trip. */
const HISTORY_LIMIT = 64;

/**
 * One viewer's PELS control: each fresh feedback event is one step of both MKC
 * (the rate, with the event's p) and eq. 4 (gamma, with the enhancement-layer
 * loss: the same p for RTCP, which measures that loss; derived from the
 * router's p, which covers the base layer too). Stale, duplicate and invalid
 * events change nothing.
 */
export class ControlLoop implements ControlState {
  private readonly guard = new FreshnessGuard();
  private readonly mkc: MkcController;
  private readonly gammaController: GammaController;
  /** The MKC floor, which is the base layer rate: router feedback is turned into enhancement loss with it. */
  private baseKbps: number;
  /** Rate in effect from fromMs on; times never decrease. */
  private readonly history: Array<{ fromMs: number; kbps: number }>;

  constructor(params: ControlLoopParams) {
    this.mkc = new MkcController(params.mkc);
    this.gammaController = new GammaController(params.gamma ?? GAMMA_DEFAULTS);
    this.baseKbps = params.mkc.minKbps;
    this.history = [{ fromMs: Number.NEGATIVE_INFINITY, kbps: this.mkc.rateKbps }];
  }

  get rateKbps(): number {
    return this.mkc.rateKbps;
  }

  get gamma(): number {
    return this.gammaController.gamma;
  }

  /** MKC's start-up phase is still on (no loss seen yet). */
  get inStartup(): boolean {
    return this.mkc.inStartup;
  }

  onFeedback(ev: FeedbackEvent): FeedbackVerdict {
    const verdict = this.guard.check(ev);
    if (verdict !== 'fresh') return verdict;
    const reference = ev.sentAtMs === undefined ? this.mkc.rateKbps : this.rateAt(ev.sentAtMs);
    this.mkc.update(ev.lossFraction, reference, { baseLoss: ev.baseLossFraction, atMs: ev.atMs });
    this.gammaController.update(ev.kind === 'router' ? routerEnhancementLoss(ev.lossFraction, reference, this.baseKbps) : ev.lossFraction);
    this.record(ev.atMs);
    return verdict;
  }

  /** The base rate (floor) and stream rate (ceiling) are measured, so they move. */
  setRateBounds(minKbps: number, maxKbps: number, atMs: number): void {
    this.mkc.setBounds(minKbps, maxKbps);
    this.baseKbps = minKbps;
    this.record(atMs);
  }

  private rateAt(ms: number): number {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const entry = this.history[i]!;
      if (entry.fromMs <= ms) return entry.kbps;
    }
    // Older than what is kept: the oldest known rate is the best guess.
    return this.history[0]!.kbps;
  }

  private record(atMs: number): void {
    const last = this.history[this.history.length - 1]!;
    if (last.kbps === this.mkc.rateKbps) return;
    this.history.push({ fromMs: Math.max(atMs, last.fromMs), kbps: this.mkc.rateKbps });
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
  }
}
