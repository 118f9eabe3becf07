/**
 * The red share gamma (paper section 4.3, eq. 4):
 *   gamma(k) = gamma(k-1) + sigma * (p(k-1)/p_thr - gamma(k-1))
 * It converges to p/p_thr, which makes the red loss p/gamma equal p_thr
 * (Lemma 4): red absorbs the loss and keeps a (1 - p_thr) cushion for yellow.
 */

export interface GammaParams {
  /** Controller gain; stable iff 0 < sigma < 2 (Lemmas 2 and 3). */
  sigma: number;
  /** Target red loss. */
  pThr: number;
  /** Floor for gamma, so some red always probes for congestion. */
  gammaLow: number;
  /** Gamma before the first feedback. */
  initial: number;
}

/** The paper's values (section 6.2). */
export const GAMMA_DEFAULTS: Readonly<GammaParams> = { sigma: 0.5, pThr: 0.75, gammaLow: 0.05, initial: 0.5 };

/** Eq. 4 without clamps. */
export function gammaStep(gamma: number, p: number, params: Pick<GammaParams, 'sigma' | 'pThr'>): number {
  return gamma + params.sigma * (p / params.pThr - gamma);
}

/** Problems that make the numbers meaningless; the controller refuses these. */
function structuralErrors(p: GammaParams): string[] {
  const errors: string[] = [];
  if (!Number.isFinite(p.sigma)) errors.push(`sigma must be a finite number; got ${p.sigma}`);
  if (!(p.pThr > 0 && p.pThr <= 1)) errors.push(`pThr must be in (0, 1]; got ${p.pThr}`);
  if (!(p.gammaLow >= 0 && p.gammaLow < 1)) errors.push(`gammaLow must be in [0, 1); got ${p.gammaLow}`);
  if (!(p.initial >= 0 && p.initial <= 1)) errors.push(`initial gamma must be in [0, 1]; got ${p.initial}`);
  return errors;
}

/**
 * Every reason to reject the parameters, as messages for an operator; empty when
 * they are usable and stable. The controller itself accepts unstable gains, so
 * the lab can reproduce the paper's Fig. 5 (sigma = 3).
 */
export function validateGammaParams(p: GammaParams): string[] {
  const errors = structuralErrors(p);
  if (Number.isFinite(p.sigma) && !(p.sigma > 0 && p.sigma < 2)) errors.push(`sigma must be in (0, 2) for gamma to be stable (paper Lemma 2); got ${p.sigma}`);
  return errors;
}

/** One flow's gamma, kept in [gammaLow, 1]. */
export class GammaController {
  private value: number;
  private readonly params: GammaParams;

  constructor(params: GammaParams = GAMMA_DEFAULTS) {
    const errors = structuralErrors(params);
    if (errors.length > 0) throw new RangeError(`invalid gamma parameters: ${errors.join('; ')}`);
    this.params = { ...params };
    this.value = this.clamp(params.initial);
  }

  get gamma(): number {
    return this.value;
  }

  /**
   * One step on fresh enhancement-layer loss p. Router feedback can be
   * negative (spare capacity); for gamma that means no loss, so it counts as 0.
   */
  update(p: number): number {
    if (!(Number.isFinite(p) && p <= 1)) throw new RangeError(`feedback p must be finite and <= 1; got ${p}`);
    this.value = this.clamp(gammaStep(this.value, Math.max(0, p), this.params));
    return this.value;
  }

  private clamp(gamma: number): number {
    return Math.min(1, Math.max(this.params.gammaLow, gamma));
  }
}
