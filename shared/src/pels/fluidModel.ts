import { MkcController, type MkcGains } from './mkc';

/**
 * A discrete fluid model of N MKC flows through one bottleneck router
 * (eqs. 8 and 9): at step k the router sees every flow's rate r_j(k) and
 * computes p(k) = (sum r - C) / sum r; flow i hears p(k) D_i steps later.
 */

export interface FluidFlow {
  /** Round-trip feedback delay D_i, in steps (>= 1). */
  delaySteps: number;
  initialKbps: number;
}

export interface FluidModelParams {
  capacityKbps: number;
  flows: readonly FluidFlow[];
  gains: MkcGains;
  /** Per-flow clamps, as in the server (base-layer floor, stream ceiling). */
  minKbps: number;
  maxKbps: number;
  steps: number;
  /**
   * 'sent' (MKC, eq. 8): step from the rate the feedback measured, r(k - D).
   * 'latest': step from r(k - 1), the classic discrete Kelly control that the
   * paper says loses stability under delay; kept for comparison.
   */
  reference?: 'sent' | 'latest';
}

export interface FluidTrace {
  /** rates[k][i]: flow i's rate at step k, kb/s. */
  rates: number[][];
  /** Router feedback p(k). */
  loss: number[];
}

export function runFluidModel(params: FluidModelParams): FluidTrace {
  const { capacityKbps, flows, gains, minKbps, maxKbps, steps, reference = 'sent' } = params;
  if (!(capacityKbps > 0)) throw new RangeError(`capacityKbps must be > 0; got ${capacityKbps}`);
  if (flows.length === 0) throw new RangeError('at least one flow is needed');
  // A zero total rate would make p = -infinity.
  if (!(minKbps > 0)) throw new RangeError(`minKbps must be > 0; got ${minKbps}`);
  for (const f of flows) if (!(Number.isInteger(f.delaySteps) && f.delaySteps >= 1)) throw new RangeError(`delaySteps must be a whole number >= 1; got ${f.delaySteps}`);

  const controllers = flows.map((f) => new MkcController({ ...gains, initialKbps: f.initialKbps, minKbps, maxKbps }));
  const rates: number[][] = [controllers.map((c) => c.rateKbps)];
  const loss: number[] = [routerLoss(rates[0]!, capacityKbps)];
  for (let k = 1; k <= steps; k++) {
    const row = controllers.map((c, i) => {
      const then = k - flows[i]!.delaySteps;
      if (then < 0) return c.rateKbps; // no feedback has arrived yet
      const p = loss[then]!;
      return reference === 'sent' ? c.update(p, rates[then]![i]!) : c.update(p);
    });
    rates.push(row);
    loss.push(routerLoss(row, capacityKbps));
  }
  return { rates, loss };
}

/** Eq. 9 with zero forward delay. */
function routerLoss(rates: readonly number[], capacityKbps: number): number {
  const total = rates.reduce((a, b) => a + b, 0);
  return (total - capacityKbps) / total;
}
