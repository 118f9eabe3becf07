import { MkcStartup, validateMkcStartupParams, type CongestionSignal, type MkcStartupParams } from './mkcStartup';

/**
 * Max-min Kelly Control, MKC (paper section 5.1, eq. 8):
 *   r(k) = r_ref + alpha - beta * r_ref * p
 * where r_ref is the rate at which the traffic the feedback p describes was
 * sent (r(k - D) in eq. 8; the current rate when feedback is one step old).
 * Stepping from that rate, not the latest one, is what makes MKC stable under
 * any feedback delay (Lemma 5). Negative p (router feedback below capacity)
 * makes the increase multiplicative: exponential ramp-up.
 */

export interface MkcGains {
  /** Additive increase per step, kb/s. */
  alphaKbps: number;
  /** Multiplicative decrease gain; stable iff 0 < beta < 2. */
  beta: number;
}

export interface MkcParams extends MkcGains {
  /** Rate before the first feedback, kb/s (the paper starts at the base layer rate). */
  initialKbps: number;
  /** Floor, kb/s: the base layer rate, which is always sent. */
  minKbps: number;
  /** Ceiling, kb/s: e.g. the full stream rate plus headroom for probing. */
  maxKbps: number;
  /** Multiplicative growth until the first loss (mkcStartup.ts); absent: eq. 8 from the first step, the paper's MKC. */
  startup?: MkcStartupParams;
}

/** The paper's gains (section 6.4). */
export const MKC_PAPER_GAINS: Readonly<MkcGains> = { alphaKbps: 20, beta: 0.5 };

/** Eq. 8 without clamps. */
export function mkcStep(referenceKbps: number, p: number, gains: MkcGains): number {
  return referenceKbps + gains.alphaKbps - gains.beta * referenceKbps * p;
}

/** Eq. 10: every flow's rate at the stationary point, whatever its delay. */
export function mkcStationaryKbps(capacityKbps: number, flows: number, gains: MkcGains): number {
  return capacityKbps / flows + gains.alphaKbps / gains.beta;
}

function boundErrors(minKbps: number, maxKbps: number): string[] {
  const errors: string[] = [];
  if (!(Number.isFinite(minKbps) && minKbps >= 0)) errors.push(`minKbps must be a finite number >= 0; got ${minKbps}`);
  if (!(Number.isFinite(maxKbps) && maxKbps >= minKbps)) errors.push(`maxKbps must be a finite number >= minKbps (${minKbps}); got ${maxKbps}`);
  return errors;
}

/** Problems that make the numbers meaningless; the controller refuses these. */
function structuralErrors(p: MkcParams): string[] {
  const errors: string[] = [];
  if (!Number.isFinite(p.alphaKbps)) errors.push(`alphaKbps must be a finite number; got ${p.alphaKbps}`);
  if (!Number.isFinite(p.beta)) errors.push(`beta must be a finite number; got ${p.beta}`);
  if (!(Number.isFinite(p.initialKbps) && p.initialKbps >= 0)) errors.push(`initialKbps must be a finite number >= 0; got ${p.initialKbps}`);
  return [...errors, ...boundErrors(p.minKbps, p.maxKbps), ...(p.startup ? validateMkcStartupParams(p.startup) : [])];
}

/**
 * Every reason to reject the parameters, as messages for an operator; empty when
 * they are usable and stable. The controller itself accepts unstable gains, so
 * the lab can show the instability.
 */
export function validateMkcParams(p: MkcParams): string[] {
  const errors = structuralErrors(p);
  if (Number.isFinite(p.alphaKbps) && !(p.alphaKbps > 0)) errors.push(`alphaKbps must be > 0 (the additive increase); got ${p.alphaKbps}`);
  if (Number.isFinite(p.beta) && !(p.beta > 0 && p.beta < 2)) errors.push(`beta must be in (0, 2) for MKC to be stable (paper Lemma 5); got ${p.beta}`);
  return errors;
}

/** One flow's MKC rate, clamped to [min, max]. */
export class MkcController {
  private rate: number;
  private minKbps: number;
  private maxKbps: number;
  private readonly gains: MkcGains;
  private readonly startup: MkcStartup | null;
  /**
   * The rate the ceiling cut off and no step has lowered since (0: none). The
   * ceiling follows the stream's measured rate, which dips while an ingest
   * stalls: the path said nothing, so the rate comes back as the ceiling does,
   * instead of climbing back by alpha a step (an open ICE-TCP path skipped a
   * third of the frames that way).
   */
  private held: number;

  constructor(params: MkcParams) {
    const errors = structuralErrors(params);
    if (errors.length > 0) throw new RangeError(`invalid MKC parameters: ${errors.join('; ')}`);
    this.gains = { alphaKbps: params.alphaKbps, beta: params.beta };
    this.minKbps = params.minKbps;
    this.maxKbps = params.maxKbps;
    this.rate = this.clamp(params.initialKbps);
    this.held = params.initialKbps > this.maxKbps ? params.initialKbps : 0;
    this.startup = params.startup ? new MkcStartup(params.startup) : null;
  }

  get rateKbps(): number {
    return this.rate;
  }

  /** True until start-up has seen its first loss; false without start-up. */
  get inStartup(): boolean {
    return this.startup?.isActive ?? false;
  }

  /**
   * One control step on fresh feedback p. referenceKbps is the rate the
   * measured traffic was sent at (eq. 8's r(k - D)); by default the current rate.
   * detail: what else the feedback says, for start-up's loss test and hold.
   */
  update(p: number, referenceKbps: number = this.rate, detail: Omit<CongestionSignal, 'p'> = {}): number {
    // Loss and router overload (R - C) / R never exceed 1; anything else is a caller bug that would poison the rate.
    if (!(Number.isFinite(p) && p <= 1)) throw new RangeError(`feedback p must be finite and <= 1; got ${p}`);
    if (!Number.isFinite(referenceKbps)) throw new RangeError(`referenceKbps must be finite; got ${referenceKbps}`);
    const eq8 = mkcStep(referenceKbps, p, this.gains);
    const next = this.startup ? this.startup.next(referenceKbps, eq8, { ...detail, p }) : eq8;
    // The path asked for less than the traffic was sent at: what the ceiling held is not earned any more.
    if (next < referenceKbps) this.held = 0;
    this.rate = this.clamp(next);
    return this.rate;
  }

  /** The rate at least kbps (within the bounds): eq. 8 steps on from there. */
  raiseTo(kbps: number): number {
    if (!Number.isFinite(kbps)) throw new RangeError(`kbps must be finite; got ${kbps}`);
    this.rate = this.clamp(Math.max(this.rate, kbps));
    return this.rate;
  }

  /** The floor follows the measured base rate and the ceiling the stream, so both may move. */
  setBounds(minKbps: number, maxKbps: number): void {
    const errors = boundErrors(minKbps, maxKbps);
    if (errors.length > 0) throw new RangeError(`invalid MKC bounds: ${errors.join('; ')}`);
    this.minKbps = minKbps;
    this.maxKbps = maxKbps;
    const wanted = Math.max(this.rate, this.held);
    this.rate = this.clamp(wanted);
    this.held = wanted > maxKbps ? wanted : 0;
  }

  private clamp(kbps: number): number {
    return Math.min(this.maxKbps, Math.max(this.minKbps, kbps));
  }
}
