/**
 * Increase-decrease control, once per round trip:
 *   r <- r + R_I(r)   after a round trip without loss
 *   r <- r - R_D(r)   on loss, at most once per round trip (one loss event)
 * AIMD, the binomial schemes (IIAD, SQRT) and ISCC differ only in R_I and
 * R_D, so they are laws plugged into one controller.
 *
 * Binomial (Bansal and Balakrishnan): R_I = lambda r^-k, R_D = sigma r^l;
 * k + l > 0 converges to fairness, k + l = 1 is TCP-friendly, l <= 1 keeps
 * r - R_D(r) positive for any r. AIMD is k = 0, l = 1; IIAD k = 1, l = 0;
 * SQRT k = l = 0.5. Packet loss with n flows grows as n^(l + 2k + 1).
 *
 * ISCC (ideally-scalable congestion control, Loguinov and Radha): with the
 * bottleneck capacity C known, 0 < r <= C, so l > 1 is safe and
 * l + 2k + 1 = 0 makes loss independent of n:
 *   sigma = 1 / (m_D C^(l-1)), m_D >= l     (efficiency: higher, more utilisation)
 *   lambda = C^(k+1) / m_I,    m_I >= 1     (aggressiveness: higher, less loss)
 * and loss tends to m_D / m_I^2 as n grows.
 */
import { FeedbackCounter, RateRange, SmoothedRtt, assertValid, type ControllerFeedback, type RateBounds, type RateController } from './rateController';

export interface LawContext {
  rttMs: number;
  /** Known bottleneck capacity, kb/s (ISCC). */
  capacityKbps: number;
}

/** R_I and R_D in kb/s per round trip. */
export interface IncreaseDecreaseLaw {
  increaseKbps(rateKbps: number, ctx: LawContext): number;
  decreaseKbps(rateKbps: number, ctx: LawContext): number;
  /** A ceiling the law itself needs, kb/s (ISCC: r <= C, where r - R_D(r) stays positive and increasing). */
  ceilingKbps?(ctx: LawContext): number;
}

/**
 * Binomial parameters in window form, as TCP states them: the window W
 * (packets per round trip) grows by alpha W^-k per round trip and shrinks by
 * beta W^l on loss.
 */
export interface BinomialParams {
  k: number;
  l: number;
  alpha: number;
  beta: number;
}

/** TCP's AIMD: +1 packet per round trip, halve on loss. */
export const AIMD_PARAMS: Readonly<BinomialParams> = { k: 0, l: 1, alpha: 1, beta: 0.5 };
/**
 * IIAD and SQRT with alpha / beta = 3/2: a binomial scheme with k + l = 1
 * then matches TCP's 1.22 / sqrt(p) packets per round trip (small-decrease
 * approximation), so all three share a link evenly with TCP.
 */
export const IIAD_PARAMS: Readonly<BinomialParams> = { k: 1, l: 0, alpha: 1, beta: 2 / 3 };
export const SQRT_PARAMS: Readonly<BinomialParams> = { k: 0.5, l: 0.5, alpha: 1, beta: 2 / 3 };

export function binomialErrors(p: BinomialParams): string[] {
  const errors: string[] = [];
  for (const key of ['k', 'l', 'alpha', 'beta'] as const) if (!Number.isFinite(p[key])) errors.push(`${key} must be a finite number; got ${p[key]}`);
  if (errors.length > 0) return errors;
  if (!(p.k + p.l > 0)) errors.push(`k + l must be > 0 to converge to fairness; got ${p.k + p.l}`);
  if (!(p.l <= 1)) errors.push(`l must be <= 1 without a known capacity (use ISCC); got ${p.l}`);
  if (!(p.alpha > 0)) errors.push(`alpha must be > 0; got ${p.alpha}`);
  if (!(p.beta > 0 && (p.l < 1 || p.beta < 1))) errors.push(`beta must be > 0 (and < 1 when l = 1); got ${p.beta}`);
  return errors;
}

/**
 * The window law in rate form. With q = one packet per round trip in kb/s
 * (packet bits / RTT), r = q W, so R_I = alpha q^(k+1) r^-k and
 * R_D = beta q^(1-l) r^l: lambda = alpha q^(k+1), sigma = beta q^(1-l).
 */
export function binomialLaw(params: BinomialParams, packetBytes: number): IncreaseDecreaseLaw {
  assertValid('binomial parameters', binomialErrors(params));
  if (!(packetBytes > 0)) throw new RangeError(`packetBytes must be > 0; got ${packetBytes}`);
  const q = (ctx: LawContext): number => (packetBytes * 8) / ctx.rttMs;
  return {
    increaseKbps: (r, ctx) => params.alpha * q(ctx) ** (params.k + 1) * r ** -params.k,
    decreaseKbps: (r, ctx) => params.beta * q(ctx) ** (1 - params.l) * r ** params.l,
  };
}

export interface IsccParams {
  k: number;
  l: number;
  /** Efficiency factor, >= l. */
  mD: number;
  /** Aggressiveness factor, >= 1. */
  mI: number;
}

/**
 * l + 2k + 1 = 0 with k + l = 0.1. Why not the obvious (-1.5, 2) with
 * m_D = 2, m_I = 8 (fluid loss limit m_D / m_I^2 = 3.1%): the fluid model
 * climbs back from a decrease in (m_I / m_D) (r / C)^(k+l) round trips,
 * 4 / sqrt(n) for that choice, under one round trip past 16 flows. A
 * controller that steps once per round trip and decreases at most once per
 * round trip then cannot shed what it adds: each flow settles where one
 * increase equals one decrease, r = C (m_D / m_I)^2 = C / 16, whatever n,
 * and 50 flows offer three times the capacity (over 50% loss in the lab).
 * k + l = 0.1 keeps a decrease cycle longer than 3 round trips up to 50
 * flows (n^-0.1 falls slowly), and m_I = 24 sets the level: the fluid limit
 * is 0.2%, about 3% in the lab, where each loss is heard a round trip late.
 * The price is slow convergence to fairness (k + l small).
 */
export const ISCC_PARAMS: Readonly<IsccParams> = { k: -1.1, l: 1.2, mD: 1.2, mI: 24 };

export function isccErrors(p: IsccParams): string[] {
  const errors: string[] = [];
  for (const key of ['k', 'l', 'mD', 'mI'] as const) if (!Number.isFinite(p[key])) errors.push(`${key} must be a finite number; got ${p[key]}`);
  if (errors.length > 0) return errors;
  if (!(p.k + p.l > 0)) errors.push(`k + l must be > 0 to converge to fairness; got ${p.k + p.l}`);
  if (!(Math.abs(p.l + 2 * p.k + 1) < 1e-9)) errors.push(`l + 2k + 1 must be 0 for loss independent of the number of flows; got ${p.l + 2 * p.k + 1}`);
  if (!(p.mD >= p.l)) errors.push(`mD must be >= l (${p.l}) so a decrease keeps the order of rates; got ${p.mD}`);
  if (!(p.mI >= 1)) errors.push(`mI must be >= 1; got ${p.mI}`);
  return errors;
}

/** lambda and sigma of ISCC for capacity C (any rate unit: ISCC is scale-free). */
export function isccConstants(p: IsccParams, capacity: number): { lambda: number; sigma: number } {
  return { lambda: capacity ** (p.k + 1) / p.mI, sigma: 1 / (p.mD * capacity ** (p.l - 1)) };
}

export function isccLaw(params: IsccParams): IncreaseDecreaseLaw {
  assertValid('ISCC parameters', isccErrors(params));
  return {
    increaseKbps: (r, ctx) => isccConstants(params, ctx.capacityKbps).lambda * r ** -params.k,
    decreaseKbps: (r, ctx) => isccConstants(params, ctx.capacityKbps).sigma * r ** params.l,
    ceilingKbps: (ctx) => ctx.capacityKbps,
  };
}

/** Binomial constants in rate form, rates in packets per round trip: what the fluid formulas take. */
export interface RateFormConstants {
  k: number;
  l: number;
  lambda: number;
  sigma: number;
}

/**
 * Steady-state loss of n synchronized flows over capacity C (fluid model):
 * each climbs from (C/n)(1 - sigma (C/n)^(l-1)) to C/n and loses one
 * increase step per cycle.
 *   p_n = lambda^2 (k+2) n^(2k+2) / (C^(2k+2) (1 - (1 - sigma (C/n)^(l-1))^(k+2)))
 */
export function binomialFluidLoss(n: number, capacity: number, c: RateFormConstants): number {
  const share = capacity / n;
  // 1 - (1 - x)^(k+2), without the cancellation that loses digits for small x.
  const dropped = -Math.expm1((c.k + 2) * Math.log1p(-c.sigma * share ** (c.l - 1)));
  return (c.lambda ** 2 * (c.k + 2) * n ** (2 * c.k + 2)) / (capacity ** (2 * c.k + 2) * dropped);
}

/**
 * The loss increase factor s_n = p_n / p_1 in closed form (second order in
 * the decrease): n^(l+2k+1) (2 - (k+1) sigma C^(l-1)) / (2 - (k+1) sigma (C/n)^(l-1)).
 */
export function binomialScalability(n: number, capacity: number, c: RateFormConstants): number {
  const d = (x: number): number => 2 - (c.k + 1) * c.sigma * x ** (c.l - 1);
  return (n ** (c.l + 2 * c.k + 1) * d(capacity)) / d(capacity / n);
}

export interface IncreaseDecreaseOptions extends RateBounds {
  /** Round-trip time assumed until the first sample, ms. */
  initialRttMs: number;
  /** Bottleneck capacity, kb/s, for laws that need it (ISCC); router feedback that carries one replaces it. Default: maxKbps. */
  capacityKbps?: number;
}

/** Whole round trips applied at once at most; past that the rate is at its ceiling for any law that converges. */
const MAX_STEPS = 10_000;
/** Gain of the round-trip EWMA (TCP's 1/8). */
const RTT_GAIN = 1 / 8;

/**
 * One flow under an increase-decrease law. The increase is applied once per
 * round trip of elapsed time, however rarely events come (a feedback every
 * second applies about 1000/RTT increases); a loss is a decrease when the
 * lost traffic was sent after the previous decrease, so one congestion
 * episode costs one decrease and decreases are at least a round trip apart.
 * Uses: 'nack' (per-packet loss), 'rtcp' and 'router' (loss > 0 in the
 * interval is a loss, otherwise time passes), 'rtt'.
 */
export class IncreaseDecreaseController implements RateController {
  private readonly counter = new FeedbackCounter();
  private readonly range: RateRange;
  private readonly rtt: SmoothedRtt;
  private rate: number;
  private capacityKbps: number;
  /** Start of the current round of increase; undefined until the first event starts the clock. */
  private stepFromMs: number | undefined;
  private lastDecreaseMs = Number.NEGATIVE_INFINITY;
  /** When the latest loss was heard of: the round trip it falls in gets no increase. */
  private lastLossMs = Number.NEGATIVE_INFINITY;

  constructor(
    readonly name: string,
    private readonly law: IncreaseDecreaseLaw,
    options: IncreaseDecreaseOptions,
  ) {
    this.range = new RateRange(options.minKbps, options.maxKbps);
    if (!(options.initialRttMs > 0)) throw new RangeError(`initialRttMs must be > 0; got ${options.initialRttMs}`);
    this.rtt = new SmoothedRtt(RTT_GAIN, options.initialRttMs);
    this.capacityKbps = options.capacityKbps ?? options.maxKbps;
    if (!(this.capacityKbps > 0)) throw new RangeError(`capacityKbps must be > 0; got ${this.capacityKbps}`);
    this.rate = this.clamp(options.initialKbps);
  }

  get rateKbps(): number {
    return this.rate;
  }

  get rttMs(): number {
    return this.rtt.ms!;
  }

  get feedbackCounts(): { used: number; ignored: number } {
    return this.counter.counts;
  }

  onFeedback(ev: ControllerFeedback): void {
    switch (ev.kind) {
      case 'rtt':
        if (this.rtt.add(ev.rttMs)) this.counter.used();
        else this.counter.ignored();
        return;
      case 'nack': {
        if (ev.sendTimesMs.length === 0 || !ev.sendTimesMs.every(Number.isFinite) || !Number.isFinite(ev.atMs)) return this.counter.ignored();
        this.counter.used();
        this.lose(Math.max(...ev.sendTimesMs), ev.atMs);
        return;
      }
      case 'rtcp':
      case 'router': {
        if (!(Number.isFinite(ev.lossFraction) && ev.lossFraction <= 1 && Number.isFinite(ev.atMs))) return this.counter.ignored();
        this.counter.used();
        if (ev.capacityKbps !== undefined && ev.capacityKbps > 0) {
          this.capacityKbps = ev.capacityKbps;
          this.rate = this.clamp(this.rate);
        }
        if (ev.lossFraction > 0) this.lose(ev.sentAtMs ?? ev.atMs, ev.atMs);
        else this.advance(ev.atMs);
        return;
      }
      default:
        this.counter.ignored();
    }
  }

  onTimer(nowMs: number): number {
    this.advance(nowMs);
    return this.stepFromMs! + this.rttMs;
  }

  setBounds(minKbps: number, maxKbps: number): void {
    this.range.set(minKbps, maxKbps);
    this.rate = this.clamp(this.rate);
  }

  /** Applies one increase per whole round trip since the last step, except in the round trip a loss was heard in. */
  private advance(nowMs: number): void {
    if (this.stepFromMs === undefined || nowMs < this.stepFromMs) {
      this.stepFromMs ??= nowMs;
      return;
    }
    const rtt = this.rttMs;
    const steps = Math.floor((nowMs - this.stepFromMs) / rtt);
    const lossy = this.lastLossMs >= this.stepFromMs && this.lastLossMs < this.stepFromMs + steps * rtt ? 1 : 0;
    const ceiling = this.clamp(Number.POSITIVE_INFINITY);
    for (let i = 0; i < Math.min(steps - lossy, MAX_STEPS) && this.rate < ceiling; i++) {
      this.rate = this.clamp(this.rate + this.law.increaseKbps(this.rate, this.context()));
    }
    this.stepFromMs = steps > MAX_STEPS ? nowMs : this.stepFromMs + steps * rtt;
  }

  /**
   * A loss of traffic sent at sentAtMs: a decrease if it was sent after the
   * last one, which is at least a round trip ago; either way no increase for
   * the round trip it was heard in (as TCP does not grow its window in recovery).
   */
  private lose(sentAtMs: number, nowMs: number): void {
    this.advance(nowMs);
    this.lastLossMs = nowMs;
    if (sentAtMs > this.lastDecreaseMs && nowMs - this.lastDecreaseMs >= this.rttMs) this.decrease(nowMs);
  }

  private decrease(nowMs: number): void {
    this.rate = this.clamp(this.rate - this.law.decreaseKbps(this.rate, this.context()));
    this.lastDecreaseMs = nowMs;
    // The next increase is a whole round trip after the decrease.
    this.stepFromMs = nowMs;
  }

  private clamp(kbps: number): number {
    const ceiling = this.law.ceilingKbps?.(this.context()) ?? Number.POSITIVE_INFINITY;
    return this.range.clamp(Math.min(kbps, ceiling));
  }

  private context(): LawContext {
    return { rttMs: this.rttMs, capacityKbps: this.capacityKbps };
  }
}
