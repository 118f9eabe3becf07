/**
 * MKC's start-up phase. Eq. 8 climbs by alpha per step: with RTCP feedback
 * (about one report a second) a viewer needs half a minute to go from the
 * base layer to a 1 mb/s stream. Start-up grows the rate multiplicatively
 * from the first fresh feedback until the first loss, then leaves eq. 8 in
 * charge for good. Eq. 8's stationary point and fairness do not depend on
 * where it starts (paper Lemmas 5 and 6), so they stay as they are.
 */

export interface MkcStartupParams {
  /**
   * Rate factor per fresh loss-free feedback, applied to the rate the
   * measured traffic was sent at (eq. 8's r(k - D)): with feedback faster
   * than the round trip the rate grows once per round trip, not once per report. > 1.
   */
  growth: number;
  /**
   * Feedback p above this is a loss and ends start-up (below it: a stray
   * drop or a burst the queue absorbed). Any base-layer loss ends it too. In [0, 1).
   */
  lossThreshold: number;
}

/** Doubling per report, like TCP's slow start per round trip: past the capacity by at most the capacity itself. */
export const MKC_STARTUP_DEFAULTS: Readonly<MkcStartupParams> = { growth: 2, lossThreshold: 0.02 };

/** What one fresh feedback says about congestion. */
export interface CongestionSignal {
  /** Eq. 8's p: enhancement-layer loss (RTCP) or (R - C) / R (router). */
  p: number;
  /** Loss of the base layer over the same interval, when it was measured. */
  baseLoss?: number;
  /** Share of all the flow's bytes lost, when known; default max(0, p). */
  flowLoss?: number;
}

/** Every reason to reject the parameters, as messages for an operator; empty when usable. */
export function validateMkcStartupParams(p: MkcStartupParams): string[] {
  const errors: string[] = [];
  if (!(Number.isFinite(p.growth) && p.growth > 1)) errors.push(`startup growth must be a finite number > 1; got ${p.growth}`);
  if (!(Number.isFinite(p.lossThreshold) && p.lossThreshold >= 0 && p.lossThreshold < 1)) errors.push(`startup lossThreshold must be in [0, 1); got ${p.lossThreshold}`);
  return errors;
}

/** A loss, for start-up: p past the threshold, or any base-layer loss (the base is what a viewer must never lose). */
export function isStartupLoss(signal: CongestionSignal, params: MkcStartupParams): boolean {
  return signal.p > params.lossThreshold || (signal.baseLoss ?? 0) > 0;
}

/**
 * Where the rate lands when start-up ends: what the path delivered of the
 * rate the measured traffic was sent at, r (1 - flow loss), which for a
 * congested bottleneck is the flow's share of it; eq. 8's own step instead
 * when that cuts deeper. Doubling has overshot by up to the capacity, and
 * eq. 8 alone (r (1 - beta p) + alpha) would leave the path overloaded for
 * several reports.
 */
export function startupExitKbps(referenceKbps: number, eq8Kbps: number, flowLoss: number): number {
  return Math.min(eq8Kbps, referenceKbps * (1 - Math.min(1, Math.max(0, flowLoss))));
}

/** One flow's start-up phase: active from creation until its first loss, never again after. */
export class MkcStartup {
  private active = true;

  constructor(private readonly params: MkcStartupParams) {
    const errors = validateMkcStartupParams(params);
    if (errors.length > 0) throw new RangeError(`invalid MKC start-up parameters: ${errors.join('; ')}`);
  }

  get isActive(): boolean {
    return this.active;
  }

  /**
   * The rate after one fresh feedback, before clamps: grown while no loss is
   * seen (never slower than eq. 8, which below a router's capacity is
   * multiplicative already), landed at the first loss, eq. 8's step after that.
   */
  next(referenceKbps: number, eq8Kbps: number, signal: CongestionSignal): number {
    if (!this.active) return eq8Kbps;
    if (isStartupLoss(signal, this.params)) {
      this.active = false;
      return startupExitKbps(referenceKbps, eq8Kbps, signal.flowLoss ?? signal.p);
    }
    return Math.max(eq8Kbps, referenceKbps * this.params.growth);
  }
}
