/**
 * A fuzzy-logic rate controller driven by packet dispersion, after Jammeh,
 * Fleury and Ghanbari. What their description fixes: the receiver reports
 * the dispersion of packet inter-arrival times after every frame (40 ms);
 * the sender derives a congestion level and its rate of change from it,
 * time-smoothed; Mamdani inference on those two inputs with if-then rules,
 * centroid defuzzification, and the crisp output modulates the sending
 * rate; a fixed reduction (a safety margin) keeps the queue from
 * overflowing; no packet-loss input.
 *
 * What it leaves open and is our choice here: the congestion level is
 * d = sum(arrival gaps) / sum(send gaps) - 1 (see DispersionMeter), smoothed
 * CL = 0.5 CL + 0.5 d; the membership functions, the rule table and the
 * output u (a rate factor per 40 ms period) below; how u is applied: a cut
 * (u < 1) multiplies the rate, a rise (u > 1) adds (u - 1) x 500 kb/s, so
 * flows that start apart converge to equal shares as under AIMD (with rises
 * multiplicative too, every flow would keep its start-up ratio to the
 * others); and the safety margin: while CL > 0.05 the rate is at most
 * r / (1 + CL) x 0.95, which is the rate the path delivered, less 5%.
 */
import { FeedbackCounter, RateRange, type ControllerFeedback, type RateBounds, type RateController } from './rateController';

/** A membership function: (a, b, c) triangle, with a shoulder (1 beyond) where a or c is infinite. */
export type Triangle = readonly [number, number, number];

export function membership([a, b, c]: Triangle, x: number): number {
  if (x === b) return 1;
  if (x < b) return a === Number.NEGATIVE_INFINITY ? 1 : x <= a ? 0 : (x - a) / (b - a);
  return c === Number.POSITIVE_INFINITY ? 1 : x >= c ? 0 : (c - x) / (c - b);
}

const INF = Number.POSITIVE_INFINITY;

export interface FuzzyParams {
  /** The feedback period the output is defined for, ms (one frame). */
  periodMs: number;
  /** Weight of the newest dispersion in the congestion level. */
  smoothing: number;
  congestion: Readonly<Record<'zero' | 'small' | 'medium' | 'large', Triangle>>;
  change: Readonly<Record<'falling' | 'steady' | 'rising', Triangle>>;
  /** Output terms: the centre of each triangle is a rate factor per period. */
  output: Readonly<Record<'bigDown' | 'down' | 'hold' | 'up' | 'bigUp', number>>;
  outputHalfWidth: number;
  /** A rise u > 1 adds (u - 1) times this per period, kb/s. */
  increaseUnitKbps: number;
  /** rules[congestion][change] = output term. */
  rules: Readonly<Record<'zero' | 'small' | 'medium' | 'large', Readonly<Record<'falling' | 'steady' | 'rising', 'bigDown' | 'down' | 'hold' | 'up' | 'bigUp'>>>>;
  /** The safety margin applies above this congestion level. */
  marginAbove: number;
  /** Fraction cut below the delivered rate. */
  margin: number;
}

export const FUZZY_DEFAULTS: FuzzyParams = {
  periodMs: 40,
  smoothing: 0.5,
  congestion: { zero: [-INF, 0, 0.05], small: [0, 0.05, 0.15], medium: [0.05, 0.15, 0.35], large: [0.15, 0.35, INF] },
  change: { falling: [-INF, -0.05, 0], steady: [-0.05, 0, 0.05], rising: [0, 0.05, INF] },
  output: { bigDown: 0.7, down: 0.85, hold: 1, up: 1.03, bigUp: 1.06 },
  outputHalfWidth: 0.04,
  increaseUnitKbps: 500,
  rules: {
    zero: { falling: 'bigUp', steady: 'up', rising: 'hold' },
    small: { falling: 'up', steady: 'hold', rising: 'down' },
    medium: { falling: 'hold', steady: 'down', rising: 'bigDown' },
    large: { falling: 'down', steady: 'bigDown', rising: 'bigDown' },
  },
  marginAbove: 0.05,
  margin: 0.05,
};

/** Sampling step of the output universe for the centroid: the term centres fall on it, so one term alone gives its centre. */
const CENTROID_STEP = 0.001;
/** Periods of increase applied at most for one late feedback. */
const MAX_PERIODS = 25;

/**
 * Mamdani inference: each rule fires with min(mu_CL, mu_dCL), each output
 * term is clipped at the strongest rule naming it, the clipped triangles are
 * joined by max, and the output is the centroid of that area.
 */
export function fuzzyRateFactor(cl: number, dcl: number, params: FuzzyParams = FUZZY_DEFAULTS): number {
  const strength: Record<string, number> = {};
  for (const [cTerm, cTri] of Object.entries(params.congestion)) {
    for (const [dTerm, dTri] of Object.entries(params.change)) {
      const out = params.rules[cTerm as keyof FuzzyParams['rules']][dTerm as keyof FuzzyParams['change']];
      strength[out] = Math.max(strength[out] ?? 0, Math.min(membership(cTri, cl), membership(dTri, dcl)));
    }
  }
  const centres = Object.values(params.output);
  const w = params.outputHalfWidth;
  const lo = Math.min(...centres) - w;
  const hi = Math.max(...centres) + w;
  const steps = Math.round((hi - lo) / CENTROID_STEP);
  let area = 0;
  let moment = 0;
  for (let i = 0; i <= steps; i++) {
    const u = lo + ((hi - lo) * i) / steps;
    let mu = 0;
    for (const [term, centre] of Object.entries(params.output)) mu = Math.max(mu, Math.min(strength[term] ?? 0, membership([centre - w, centre, centre + w], u)));
    area += mu;
    moment += mu * u;
  }
  return area > 0 ? moment / area : 1;
}

/**
 * The receiver's side: for consecutive packets both received, the sum of
 * arrival gaps over the sum of send gaps (send times travel in the packets).
 * Each report covers the packets since the previous one.
 */
export class DispersionMeter {
  private last: { seq: number; sentAtMs: number; arrivalMs: number } | undefined;
  private arrivalGaps = 0;
  private sendGaps = 0;
  private pairs = 0;

  add(seq: number, sentAtMs: number, arrivalMs: number): void {
    const last = this.last;
    if (last && seq === last.seq + 1 && sentAtMs > last.sentAtMs) {
      this.arrivalGaps += arrivalMs - last.arrivalMs;
      this.sendGaps += sentAtMs - last.sentAtMs;
      this.pairs++;
    }
    this.last = { seq, sentAtMs, arrivalMs };
  }

  report(atMs: number): { kind: 'dispersion'; ratio: number; pairs: number; atMs: number } {
    const ratio = this.pairs > 0 ? this.arrivalGaps / this.sendGaps - 1 : 0;
    const report = { kind: 'dispersion' as const, ratio, pairs: this.pairs, atMs };
    this.arrivalGaps = this.sendGaps = this.pairs = 0;
    return report;
  }
}

/** Uses 'dispersion' only. */
export class FuzzyController implements RateController {
  readonly name = 'fuzzy';
  readonly rttMs = undefined;
  private readonly counter = new FeedbackCounter();
  private readonly range: RateRange;
  private rate: number;
  private cl = 0;
  private lastAtMs: number | undefined;

  constructor(
    bounds: RateBounds,
    private readonly params: FuzzyParams = FUZZY_DEFAULTS,
  ) {
    this.range = new RateRange(bounds.minKbps, bounds.maxKbps);
    if (!(params.periodMs > 0 && params.smoothing > 0 && params.smoothing <= 1)) throw new RangeError('fuzzy periodMs must be > 0 and smoothing in (0, 1]');
    this.rate = this.range.clamp(bounds.initialKbps);
  }

  get rateKbps(): number {
    return this.rate;
  }

  /** The smoothed congestion level. */
  get congestionLevel(): number {
    return this.cl;
  }

  get feedbackCounts(): { used: number; ignored: number } {
    return this.counter.counts;
  }

  onFeedback(ev: ControllerFeedback): void {
    if (ev.kind !== 'dispersion' || ev.pairs <= 0 || !Number.isFinite(ev.ratio) || !Number.isFinite(ev.atMs)) return this.counter.ignored();
    this.counter.used();
    const previous = this.cl;
    this.cl = (1 - this.params.smoothing) * this.cl + this.params.smoothing * ev.ratio;
    const u = fuzzyRateFactor(this.cl, this.cl - previous, this.params);
    // Feedback slower than one per period: an increase is applied once per period of elapsed time, a decrease once.
    const periods = this.lastAtMs === undefined ? 1 : Math.min(MAX_PERIODS, Math.max(1, (ev.atMs - this.lastAtMs) / this.params.periodMs));
    this.lastAtMs = ev.atMs;
    let next = u > 1 ? this.rate + (u - 1) * this.params.increaseUnitKbps * periods : this.rate * u;
    if (this.cl > this.params.marginAbove) next = Math.min(next, (this.rate / (1 + this.cl)) * (1 - this.params.margin));
    this.rate = this.range.clamp(next);
  }

  setBounds(minKbps: number, maxKbps: number): void {
    this.range.set(minKbps, maxKbps);
    this.rate = this.range.clamp(this.rate);
  }
}
