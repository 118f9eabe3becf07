import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import { GAMMA_DEFAULTS, validateGammaParams } from '@pels/shared/pels/gammaController';
import { validateMkcParams } from '@pels/shared/pels/mkc';
import type { ControllerGains, ControlSettingsInfo, ControlUpdate } from '@pels/shared/protocol/operator';
import { RequestError } from '../errors';

/**
 * The controller parameters new viewers start with, which the operator may
 * change. A viewer keeps the gains it joined with: the stability results
 * (MKC Lemma 5, gamma Lemma 2) are for fixed gains, and a running MKC steps
 * from its own rate history. So a change reaches viewers that join after it
 * (a disconnected player that reconnects gets it).
 */
export class ControlSettings {
  constructor(
    private params: ControlLoopParams,
    /** Hands the new parameters to every stream (and so to its next viewers). */
    private readonly apply: (params: ControlLoopParams) => void,
  ) {}

  get current(): ControlLoopParams {
    return this.params;
  }

  info(): ControlSettingsInfo {
    const gamma = this.params.gamma ?? GAMMA_DEFAULTS;
    return { gains: { alphaKbps: this.params.mkc.alphaKbps, beta: this.params.mkc.beta, sigma: gamma.sigma, pThr: gamma.pThr }, appliesTo: 'new-viewers' };
  }

  /** Changes some gains; outside their stable ranges nothing changes and the answer is a 400 naming each problem. */
  update(u: ControlUpdate): ControlSettingsInfo {
    const gains: ControllerGains = { ...this.info().gains, ...u };
    const next: ControlLoopParams = {
      ...this.params,
      mkc: { ...this.params.mkc, alphaKbps: gains.alphaKbps, beta: gains.beta },
      gamma: { ...(this.params.gamma ?? GAMMA_DEFAULTS), sigma: gains.sigma, pThr: gains.pThr },
    };
    const problems = [...validateMkcParams(next.mkc), ...validateGammaParams(next.gamma!)];
    if (problems.length) throw new RequestError('bad_request', `controller parameters rejected: ${problems.join('; ')}`);
    this.params = next;
    this.apply(next);
    return this.info();
  }
}
