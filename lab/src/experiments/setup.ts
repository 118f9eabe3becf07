import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import type { FeedbackSource } from '../sim/receiver';
import { classLoss } from '../sim/bottleneck';
import { PAPER_NETWORK, runScenario, type FlowSpec, type ScenarioParams, type ScenarioResult, type SourceKind } from '../sim/scenario';
import type { SimulationCost } from './experiment';

/** The paper's flows (sections 6.2-6.4): MKC alpha 20 kb/s, beta 0.5, from the base rate 128 kb/s; gamma sigma 0.5, p_thr 0.75, from 0.5, floor 0.05. */
export const PAPER_BASE_KBPS = 128;

/** The FGS source's ceiling is R_max, 126 packets of 500 bytes per frame at 10 fps. */
export const FGS_CONTROL: ControlLoopParams = {
  mkc: { ...MKC_PAPER_GAINS, initialKbps: PAPER_BASE_KBPS, minKbps: PAPER_BASE_KBPS, maxKbps: 5040 },
  gamma: GAMMA_DEFAULTS,
};

/** The product's frames: floor at the base layer, ceiling twice the full stream, as the server sets them. */
export const FRAMES_CONTROL: ControlLoopParams = {
  mkc: { ...MKC_PAPER_GAINS, initialKbps: PAPER_BASE_KBPS, minKbps: PAPER_BASE_KBPS, maxKbps: 1460 },
  gamma: GAMMA_DEFAULTS,
};

/** The PELS queue's share of the paper's bottleneck: C in eqs. 10 and 11. */
export const PAPER_PELS_KBPS = PAPER_NETWORK.capacityKbps * (1 - PAPER_NETWORK.internetShare);

export function flow(source: SourceKind, startMs = 0, accessDelayMs = 5): FlowSpec {
  return { startMs, accessDelayMs, source, control: source === 'fgs' ? FGS_CONTROL : FRAMES_CONTROL };
}

export function scenario(seed: number, durationMs: number, feedback: FeedbackSource, flows: FlowSpec[], extra: Partial<ScenarioParams> = {}): ScenarioParams {
  return { ...PAPER_NETWORK, seed, durationMs, feedback, flows, ...extra };
}

/** Runs scenarios and adds up their cost for the speed-up report. */
export class Runner {
  readonly cost: SimulationCost = { simulatedSeconds: 0, wallSeconds: 0, events: 0 };

  run(params: ScenarioParams): ScenarioResult {
    const result = runScenario(params);
    this.cost.simulatedSeconds += params.durationMs / 1000;
    this.cost.wallSeconds += result.wallMs / 1000;
    this.cost.events += result.events;
    return result;
  }
}

/** Loss of the PELS colors at the router over [fromMs, toMs). */
export function lossOf(result: ScenarioResult, color: 'green' | 'yellow' | 'red' | 'enhancement' | 'all', fromMs: number, toMs: number): number | undefined {
  const classes = color === 'enhancement' ? (['yellow', 'red'] as const) : color === 'all' ? (['green', 'yellow', 'red'] as const) : [color];
  return classLoss(result.classes, classes, fromMs, toMs);
}

/** Mean queueing delay of a color's packets that left over [fromMs, toMs), ms. */
export function delayOf(result: ScenarioResult, color: 'green' | 'yellow' | 'red', fromMs: number, toMs: number): number | undefined {
  const { sum, count } = result.classes[color].delayMs.total(fromMs, toMs);
  return count > 0 ? sum / count : undefined;
}

/** Mean of a flow's sampled rate or gamma over [fromMs, toMs). */
export function meanSample(result: ScenarioResult, flowIndex: number, key: 'rateKbps' | 'gamma', fromMs: number, toMs: number): number {
  const samples = result.flows[flowIndex]!.samples.filter((s) => s.tMs >= fromMs && s.tMs < toMs);
  return samples.reduce((a, s) => a + s[key], 0) / samples.length;
}

/** Mean router feedback p(k) over [fromMs, toMs). */
export function meanRouterP(result: ScenarioResult, fromMs: number, toMs: number): number {
  const fb = result.routerFeedback.filter((f) => f.atMs >= fromMs && f.atMs < toMs);
  return fb.reduce((a, f) => a + f.p, 0) / fb.length;
}
