/**
 * Today's MKC (../pels/mkc.ts) behind the RateController interface: each
 * fresh 'rtcp' or 'router' event is one step of eq. 8, taken from the rate
 * in effect when the measured traffic was sent (r(k - D)), with the base-layer
 * loss and time its start-up needs. Other kinds are ignored.
 */
import { FreshnessGuard } from '../pels/feedback';
import { MkcController, type MkcGains, type MkcParams } from '../pels/mkc';
import { FeedbackCounter, assertValid, boundsErrors, type ControllerFeedback, type RateController } from './rateController';
import { RateHistory } from '../pels/rateHistory';


/**
 * MKC's stationary loss with router feedback: n flows at C/n + alpha/beta
 * (eq. 10) offer C + n alpha/beta, so the bottleneck drops
 * p = n alpha / (beta C + n alpha). It grows with n: MKC is not ideally scalable.
 */
export function mkcStationaryLoss(flows: number, capacityKbps: number, gains: MkcGains): number {
  return (flows * gains.alphaKbps) / (gains.beta * capacityKbps + flows * gains.alphaKbps);
}

export class MkcRateController implements RateController {
  readonly name = 'mkc';
  readonly rttMs = undefined;
  private readonly counter = new FeedbackCounter();
  private readonly guard = new FreshnessGuard();
  private readonly mkc: MkcController;
  /** Rate in effect from fromMs on; times never decrease. */
  private readonly history: RateHistory;

  constructor(params: MkcParams) {
    // Stricter than MkcController (a floor above 0), like every rate controller.
    assertValid('rate bounds', boundsErrors(params.minKbps, params.maxKbps));
    this.mkc = new MkcController(params);
    this.history = new RateHistory(this.mkc.rateKbps);
  }

  get rateKbps(): number {
    return this.mkc.rateKbps;
  }

  get inStartup(): boolean {
    return this.mkc.inStartup;
  }

  get feedbackCounts(): { used: number; ignored: number } {
    return this.counter.counts;
  }

  onFeedback(ev: ControllerFeedback): void {
    if ((ev.kind !== 'rtcp' && ev.kind !== 'router') || this.guard.check(ev) !== 'fresh') return this.counter.ignored();
    this.counter.used();
    this.mkc.update(ev.lossFraction, ev.sentAtMs === undefined ? this.mkc.rateKbps : this.history.at(ev.sentAtMs), { baseLoss: ev.baseLossFraction, atMs: ev.atMs, rttMs: ev.rttMs });
    this.record(ev.atMs);
  }

  probe(kbps: number, atMs: number): void {
    this.mkc.raiseTo(kbps);
    this.record(atMs);
  }

  /** A bounds change without a time is dated to the last change: the clamped rate is assumed in force since then. */
  setBounds(minKbps: number, maxKbps: number, atMs: number = this.history.lastChangeMs): void {
    assertValid('rate bounds', boundsErrors(minKbps, maxKbps));
    this.mkc.setBounds(minKbps, maxKbps);
    this.record(atMs);
  }

  private record(atMs: number): void {
    this.history.record(atMs, this.mkc.rateKbps);
  }
}
