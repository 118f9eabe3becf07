import { FreshnessGuard, routerEnhancementLoss, type FeedbackEvent, type FeedbackVerdict } from './feedback';
import { GAMMA_DEFAULTS, GammaController, type GammaParams } from './gammaController';
import { MkcController, type MkcParams } from './mkc';
import { RateHistory } from './rateHistory';

/** What a flow policy reads from a viewer's control loop. */
export interface ControlState {
  readonly rateKbps: number;
  readonly gamma: number;
}

export interface ControlLoopParams {
  mkc: MkcParams;
  gamma?: GammaParams;
}


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
  private readonly history: RateHistory;

  constructor(params: ControlLoopParams) {
    this.mkc = new MkcController(params.mkc);
    this.gammaController = new GammaController(params.gamma ?? GAMMA_DEFAULTS);
    this.baseKbps = params.mkc.minKbps;
    this.history = new RateHistory(this.mkc.rateKbps);
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
    const reference = ev.sentAtMs === undefined ? this.mkc.rateKbps : this.history.at(ev.sentAtMs);
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

  private record(atMs: number): void {
    this.history.record(atMs, this.mkc.rateKbps);
  }
}
