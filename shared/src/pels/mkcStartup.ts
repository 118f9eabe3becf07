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
  /**
   * For this long after start-up ends, eq. 8 may raise the rate but not take
   * it below where it landed: feedback that soon still describes the
   * overshoot the landing answered (RTCP reports lag by a second or two, and
   * the queue the overshoot filled takes as long to drain). ms, >= 0.
   */
  holdMs: number;
  /**
   * Round trips this much above the least one seen while growing end
   * start-up too, as a loss would (HyStart's delay exit): a queue is filling.
   * A queue served after the base layer's can hold seconds of packets before
   * it drops one, so the loss comes too late to stop the doubling. As in
   * HyStart++, the least round trip of the last DELAY_EXIT_REPORTS fresh
   * feedbacks is what must rise: a queue delays every report, while a busy
   * machine's late receiver reports (100-700 ms on an open link under load)
   * come one or two at a time, and halving on those left viewers on open
   * links at half rate. A round trip past the margin in the latest feedback
   * alone pauses the growth. ms, >= 0; absent: no delay exit (as recordings
   * made before it replay).
   */
  delayExitMs?: number;
}

/** Fresh feedbacks whose least round trip the delay exit compares: a queue holds for all of them. */
export const DELAY_EXIT_REPORTS = 3;

/**
 * Doubling per report, like TCP's slow start per round trip; a hold of about
 * three RTCP reports; 200 ms of queueing ends it. p is the congestion estimate
 * (wire loss taken out, less a standard error of noise): 5%, because at 10%
 * random loss a step's leftover noise read 2-4% and ended start-up in the
 * first seconds, while an overshoot at a PELS router drops far more red.
 */
export const MKC_STARTUP_DEFAULTS: Readonly<MkcStartupParams> = { growth: 2, lossThreshold: 0.05, holdMs: 3000, delayExitMs: 200 };

/** What one fresh feedback says about congestion. */
export interface CongestionSignal {
  /** Eq. 8's p: enhancement-layer loss (RTCP) or (R - C) / R (router). */
  p: number;
  /** Loss of the base layer over the same interval, when it was measured. */
  baseLoss?: number;
  /** When the feedback arrived, ms; without it there is no hold after the landing. */
  atMs?: number;
  /** The longest round trip of the streams measured, ms. */
  rttMs?: number;
}

/** Every reason to reject the parameters, as messages for an operator; empty when usable. */
export function validateMkcStartupParams(p: MkcStartupParams): string[] {
  const errors: string[] = [];
  if (!(Number.isFinite(p.growth) && p.growth > 1)) errors.push(`startup growth must be a finite number > 1; got ${p.growth}`);
  if (!(Number.isFinite(p.lossThreshold) && p.lossThreshold >= 0 && p.lossThreshold < 1)) errors.push(`startup lossThreshold must be in [0, 1); got ${p.lossThreshold}`);
  if (!(Number.isFinite(p.holdMs) && p.holdMs >= 0)) errors.push(`startup holdMs must be a finite number >= 0; got ${p.holdMs}`);
  if (p.delayExitMs !== undefined && !(Number.isFinite(p.delayExitMs) && p.delayExitMs >= 0)) errors.push(`startup delayExitMs must be a finite number >= 0; got ${p.delayExitMs}`);
  return errors;
}

/** A loss, for start-up: p past the threshold, or any base-layer loss (the base is what a viewer must never lose). */
export function isStartupLoss(signal: CongestionSignal, params: MkcStartupParams): boolean {
  return signal.p > params.lossThreshold || (signal.baseLoss ?? 0) > 0;
}

/**
 * Where the rate lands when start-up ends: half the rate the loss was
 * measured at (with growth 2, back to the rate before the last doubling, as
 * TCP halves at the end of slow start), never above eq. 8's own step. Not
 * the rate the loss suggests the path delivered: the first loss measures the
 * overshoot badly, too low while the queue it fills still absorbs it, and as
 * p = 1 when a stream it starved sends no receiver report at all.
 */
export function startupExitKbps(referenceKbps: number, eq8Kbps: number, growth: number): number {
  return Math.min(eq8Kbps, referenceKbps / growth);
}

/**
 * One flow's start-up phase: growing from creation until its first loss,
 * then holding the landing rate as a floor for holdMs, then done for good.
 */
export class MkcStartup {
  private phase: 'growing' | 'holding' | 'done' = 'growing';
  private landing = { kbps: 0, untilMs: 0 };
  private minRttMs = Number.POSITIVE_INFINITY;
  /** The round trips of the latest fresh feedbacks that had one, newest last (at most DELAY_EXIT_REPORTS). */
  private recentRttMs: number[] = [];

  constructor(private readonly params: MkcStartupParams) {
    const errors = validateMkcStartupParams(params);
    if (errors.length > 0) throw new RangeError(`invalid MKC start-up parameters: ${errors.join('; ')}`);
  }

  /** Still growing: no loss seen yet. */
  get isActive(): boolean {
    return this.phase === 'growing';
  }

  /**
   * The rate after one fresh feedback, before clamps: grown while no loss is
   * seen (never slower than eq. 8, which below a router's capacity is
   * multiplicative already), landed at the first loss, eq. 8's step after
   * that (not below the landing while the hold lasts).
   */
  next(referenceKbps: number, eq8Kbps: number, signal: CongestionSignal): number {
    if (this.phase === 'holding') {
      if (signal.atMs !== undefined && signal.atMs < this.landing.untilMs) return Math.max(eq8Kbps, this.landing.kbps);
      this.phase = 'done';
    }
    if (this.phase === 'done') return eq8Kbps;
    if (signal.rttMs !== undefined) {
      this.minRttMs = Math.min(this.minRttMs, signal.rttMs);
      this.recentRttMs = [...this.recentRttMs, signal.rttMs].slice(-DELAY_EXIT_REPORTS);
    }
    const lateAfterMs = this.minRttMs + (this.params.delayExitMs ?? Number.POSITIVE_INFINITY);
    const late = signal.rttMs !== undefined && signal.rttMs > lateAfterMs;
    const queued = late && this.recentRttMs.length === DELAY_EXIT_REPORTS && Math.min(...this.recentRttMs) > lateAfterMs;
    if (!queued && !isStartupLoss(signal, this.params)) return late ? eq8Kbps : Math.max(eq8Kbps, referenceKbps * this.params.growth);
    const kbps = startupExitKbps(referenceKbps, eq8Kbps, this.params.growth);
    this.phase = signal.atMs === undefined ? 'done' : 'holding';
    this.landing = { kbps, untilMs: (signal.atMs ?? 0) + this.params.holdMs };
    return kbps;
  }
}
