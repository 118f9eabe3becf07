import { FreshnessGuard, routerEnhancementLoss, type FeedbackEvent, type FeedbackVerdict } from '../pels/feedback';
import { GAMMA_DEFAULTS, GammaController, type GammaParams } from '../pels/gammaController';
import type { MkcParams } from '../pels/mkc';
import { RateHistory } from '../pels/rateHistory';
import type { ControllerFeedback, RateController } from '../rate/rateController';
import { RATE_CONTROLLERS, type RateControllerName } from '../rate/registry';

/** What a flow policy reads from a viewer's control loop. */
export interface ControlState {
  readonly rateKbps: number;
  readonly gamma: number;
}

export interface ControlLoopParams {
  /** The rate controller, by registry name; default 'mkc'. */
  controller?: RateControllerName;
  /** The rate bounds every controller starts from (initial, floor, ceiling), and MKC's own gains and start-up. */
  mkc: MkcParams;
  gamma?: GammaParams;
}

/**
 * One viewer's rate and gamma: each fresh feedback event is one step of the
 * rate controller (MKC by default: eq. 8 with the event's p) and of eq. 4
 * (gamma, with the enhancement-layer loss: the same p for RTCP, which
 * measures that loss; derived from the router's p, which covers the base
 * layer too). Stale, duplicate and invalid events change nothing. Gamma works
 * the same with every controller: it only needs the loss and the rate.
 */
export class ControlLoop implements ControlState {
  private name!: RateControllerName;
  private readonly guard = new FreshnessGuard();
  private rate!: RateController;
  /** Feedback kinds the controller acts on; others are not offered to it. */
  private uses!: ReadonlySet<ControllerFeedback['kind']>;
  private readonly gammaController: GammaController;
  /** MKC's gains and start-up, for when MKC is (again) the controller. */
  private readonly mkc: Omit<MkcParams, 'initialKbps' | 'minKbps' | 'maxKbps'>;
  /** The floor, which is the base layer rate: router feedback is turned into enhancement loss with it. */
  private baseKbps: number;
  private maxKbps: number;
  /** Rate in effect from fromMs on, for gamma's reference; times never decrease. */
  private readonly history: RateHistory;
  /** When the controller next wants its timer; undefined: it has none. */
  private timerDueMs: number | undefined;

  constructor(params: ControlLoopParams) {
    const { initialKbps, minKbps, maxKbps, ...mkc } = params.mkc;
    this.mkc = mkc;
    this.baseKbps = minKbps;
    this.maxKbps = maxKbps;
    this.install(params.controller ?? 'mkc', initialKbps, mkc);
    this.gammaController = new GammaController(params.gamma ?? GAMMA_DEFAULTS);
    this.history = new RateHistory(this.rate.rateKbps);
  }

  get controller(): RateControllerName {
    return this.name;
  }

  /**
   * Another rate controller from now on, starting at the current rate within
   * the current bounds; gamma goes on. Start-up is for a new viewer's first
   * climb, so a controller switched to does not run one.
   */
  useController(name: RateControllerName, atMs: number): void {
    if (name === this.name) return;
    const { startup: _startup, ...gains } = this.mkc;
    this.install(name, this.rate.rateKbps, gains);
    this.record(atMs);
  }

  private install(name: RateControllerName, initialKbps: number, mkc: ControlLoop['mkc']): void {
    const entry = RATE_CONTROLLERS[name];
    this.rate = entry.create({ initialKbps, minKbps: this.baseKbps, maxKbps: this.maxKbps, mkc });
    this.name = name;
    this.uses = new Set(entry.feedback);
    this.timerDueMs = this.rate.onTimer ? Number.NEGATIVE_INFINITY : undefined;
  }

  get rateKbps(): number {
    return this.rate.rateKbps;
  }

  get gamma(): number {
    return this.gammaController.gamma;
  }

  /** A start-up phase (MKC's) is still on. */
  get inStartup(): boolean {
    return this.rate.inStartup ?? false;
  }

  onFeedback(ev: FeedbackEvent): FeedbackVerdict {
    const verdict = this.guard.check(ev);
    if (verdict !== 'fresh') return verdict;
    const reference = ev.sentAtMs === undefined ? this.rate.rateKbps : this.history.at(ev.sentAtMs);
    if (this.uses.has(ev.kind)) this.feed(ev);
    this.gammaController.update(ev.kind === 'router' ? routerEnhancementLoss(ev.lossFraction, reference, this.baseKbps) : ev.lossFraction);
    this.record(ev.atMs);
    return verdict;
  }

  /** A round-trip measurement, for the controllers that pace their steps by it. */
  onRtt(rttMs: number, atMs: number): void {
    if (!this.uses.has('rtt')) return;
    this.feed({ kind: 'rtt', rttMs, atMs });
    this.record(atMs);
  }

  /** A probe (see ProbeInput): the rate is raised to kbps, within the bounds, by the controllers that can be told so. */
  probe(kbps: number, atMs: number): void {
    if (!this.rate.probe) return;
    this.rate.probe(kbps, atMs);
    this.record(atMs);
  }

  /** Runs the controller's timer when it is due (per-RTT steps, no-feedback timers); true when it ran. */
  onTime(nowMs: number): boolean {
    if (this.timerDueMs === undefined || nowMs < this.timerDueMs) return false;
    this.timerDueMs = this.rate.onTimer?.(nowMs) ?? undefined;
    this.record(nowMs);
    return true;
  }

  /** The base rate (floor) and stream rate (ceiling) are measured, so they move. */
  setRateBounds(minKbps: number, maxKbps: number, atMs: number): void {
    this.rate.setBounds(minKbps, maxKbps, atMs);
    this.baseKbps = minKbps;
    this.maxKbps = maxKbps;
    this.record(atMs);
  }

  /** Feedback may move the controller's timer: it is asked again at the next input (asking early is harmless). */
  private feed(ev: ControllerFeedback): void {
    this.rate.onFeedback(ev);
    if (this.rate.onTimer) this.timerDueMs = Number.NEGATIVE_INFINITY;
  }

  private record(atMs: number): void {
    this.history.record(atMs, this.rate.rateKbps);
  }
}
