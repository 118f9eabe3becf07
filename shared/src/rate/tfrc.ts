/**
 * TCP-Friendly Rate Control (RFC 3448): the sender sets its rate from the
 * TCP throughput equation, fed with the loss event rate and receive rate the
 * receiver reports about once per round trip (see tfrcReceiver.ts).
 */
import { FeedbackCounter, RateRange, SmoothedRtt, type ControllerFeedback, type RateBounds, type RateController } from './rateController';

/**
 * RFC 3448 section 3.1, bytes/s:
 *   X = s / (R sqrt(2 b p / 3) + t_RTO (3 sqrt(3 b p / 8)) p (1 + 32 p^2))
 * s packet bytes, R round trip in seconds, p loss event rate, b packets per
 * ACK (1), t_RTO = 4 R.
 */
export function tfrcThroughputBytesPerS(packetBytes: number, rttS: number, p: number, b = 1, tRtoS = 4 * rttS): number {
  return packetBytes / (rttS * Math.sqrt((2 * b * p) / 3) + tRtoS * (3 * Math.sqrt((3 * b * p) / 8)) * p * (1 + 32 * p * p));
}

/** The same equation in the units controllers use: kb/s from a round trip in ms. */
export function tfrcEquationKbps(packetBytes: number, rttMs: number, p: number): number {
  return (tfrcThroughputBytesPerS(packetBytes, rttMs / 1000, p) * 8) / 1000;
}

/**
 * The loss event rate at which the equation gives xKbps (the equation falls
 * as p grows, so bisection on log p). Used to seed the loss history at the
 * first loss (RFC 3448 section 6.3.1).
 */
export function tfrcLossRateFor(xKbps: number, packetBytes: number, rttMs: number): number {
  let lo = 1e-9;
  let hi = 1;
  if (tfrcEquationKbps(packetBytes, rttMs, lo) <= xKbps) return lo;
  if (tfrcEquationKbps(packetBytes, rttMs, hi) >= xKbps) return hi;
  for (let i = 0; i < 100; i++) {
    const mid = Math.sqrt(lo * hi);
    if (tfrcEquationKbps(packetBytes, rttMs, mid) > xKbps) lo = mid;
    else hi = mid;
  }
  return Math.sqrt(lo * hi);
}

/** RFC 3448 section 5.4: weights of the 8 most recent loss intervals, newest first. */
export const TFRC_LOSS_WEIGHTS: readonly number[] = [1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2];

/**
 * Average loss interval (RFC 3448 section 5.4). intervals[0] is the open
 * interval (packets since the most recent loss event), then the closed ones,
 * newest first. The mean with and without the open interval is taken and
 * the larger wins, so a long loss-free run lowers p at once while a short
 * open interval cannot raise it. With fewer than 8 closed intervals the
 * weights of those present are used. Undefined before the first loss event.
 */
export function averageLossInterval(intervals: readonly number[]): number | undefined {
  const n = TFRC_LOSS_WEIGHTS.length;
  if (intervals.length < 2) return undefined;
  const weighted = (from: number): number => {
    let sum = 0;
    let weights = 0;
    for (let i = 0; i < n && from + i < intervals.length; i++) {
      sum += intervals[from + i]! * TFRC_LOSS_WEIGHTS[i]!;
      weights += TFRC_LOSS_WEIGHTS[i]!;
    }
    return sum / weights;
  };
  return Math.max(weighted(0), weighted(1));
}

export interface TfrcOptions extends RateBounds {
  packetBytes: number;
  /**
   * RFC 3448 section 4.5 oscillation avoidance: the rate is scaled by
   * sqrt-mean RTT / sqrt(latest RTT sample), so a growing queue slows the
   * sender before any loss (ns-2's default, ca_ 1).
   */
  oscillationAvoidance: boolean;
}

/** RFC 3448: t_mbi, the longest a sender backs off between packets, ms. */
const T_MBI_MS = 64_000;
/** RTT EWMA weight of the old value, q = 0.9. */
const RTT_GAIN = 0.1;
/** The no-feedback timer before the first report, ms. */
const INITIAL_NO_FEEDBACK_MS = 2000;

/**
 * The TFRC sender (RFC 3448 section 4). Uses 'receiver-report' only.
 * A report with p > 0 sets X = max(min(X_calc, 2 X_recv), s / t_mbi); with
 * p = 0 (slow start) X doubles at most once per round trip, capped at
 * twice the receive rate. Without reports for max(4 R, 2 s / X) the
 * no-feedback timer halves the allowed rate.
 */
export class TfrcController implements RateController {
  readonly name = 'tfrc';
  private readonly counter = new FeedbackCounter();
  private readonly range: RateRange;
  private readonly rtt = new SmoothedRtt(RTT_GAIN);
  private readonly packetKbits: number;
  /** Allowed rate X, kb/s. */
  private x: number;
  private xRecv: number | undefined;
  private p = 0;
  /** Time X last doubled in slow start. */
  private tld: number | undefined;
  private noFeedbackAtMs: number | undefined;
  private sqrtMean: number | undefined;
  private lastSqrtSample: number | undefined;

  constructor(private readonly options: TfrcOptions) {
    if (!(options.packetBytes > 0)) throw new RangeError(`packetBytes must be > 0; got ${options.packetBytes}`);
    this.range = new RateRange(options.minKbps, options.maxKbps);
    this.packetKbits = (options.packetBytes * 8) / 1000;
    this.x = this.range.clamp(options.initialKbps);
  }

  get rateKbps(): number {
    const scale = this.options.oscillationAvoidance && this.sqrtMean !== undefined && this.lastSqrtSample !== undefined ? this.sqrtMean / this.lastSqrtSample : 1;
    return this.range.clamp(this.x * scale);
  }

  get rttMs(): number | undefined {
    return this.rtt.ms;
  }

  /** The loss event rate from the last report. */
  get lossEventRate(): number {
    return this.p;
  }

  get feedbackCounts(): { used: number; ignored: number } {
    return this.counter.counts;
  }

  onFeedback(ev: ControllerFeedback): void {
    if (ev.kind !== 'receiver-report') return this.counter.ignored();
    const sample = ev.atMs - ev.echoTsMs - ev.tDelayMs;
    const valid = Number.isFinite(ev.xRecvKbps) && ev.xRecvKbps >= 0 && Number.isFinite(ev.lossEventRate) && ev.lossEventRate >= 0 && ev.lossEventRate <= 1;
    if (!valid || !this.rtt.add(sample)) return this.counter.ignored();
    this.counter.used();
    const sqrtSample = Math.sqrt(sample);
    this.sqrtMean = this.sqrtMean === undefined ? sqrtSample : 0.9 * this.sqrtMean + 0.1 * sqrtSample;
    this.lastSqrtSample = sqrtSample;
    this.p = ev.lossEventRate;
    this.xRecv = ev.xRecvKbps;
    this.updateRate(ev.atMs);
    this.armNoFeedbackTimer(ev.atMs);
  }

  onTimer(nowMs: number): number {
    if (this.noFeedbackAtMs === undefined) this.noFeedbackAtMs = nowMs + INITIAL_NO_FEEDBACK_MS;
    else if (nowMs >= this.noFeedbackAtMs) {
      this.expireNoFeedback(nowMs);
      this.armNoFeedbackTimer(nowMs);
    }
    return this.noFeedbackAtMs;
  }

  setBounds(minKbps: number, maxKbps: number): void {
    this.range.set(minKbps, maxKbps);
    this.x = this.range.clamp(this.x);
  }

  /** RFC 3448 section 4.3 step 4. */
  private updateRate(nowMs: number): void {
    const r = this.rtt.ms!;
    const xRecv = this.xRecv ?? this.x;
    if (this.p > 0) {
      const xCalc = tfrcEquationKbps(this.options.packetBytes, r, this.p);
      this.x = Math.max(Math.min(xCalc, 2 * xRecv), this.packetKbits / (T_MBI_MS / 1000));
    } else if (this.tld === undefined || nowMs - this.tld >= r) {
      this.x = Math.max(Math.min(2 * this.x, 2 * xRecv), (this.options.packetBytes * 8) / r);
      this.tld = nowMs;
    }
    this.x = this.range.clamp(this.x);
  }

  /** RFC 3448 section 4.4. */
  private expireNoFeedback(nowMs: number): void {
    if (!this.rtt.measured || this.xRecv === undefined) {
      this.x = this.range.clamp(Math.max(this.x / 2, this.packetKbits / (T_MBI_MS / 1000)));
      return;
    }
    const xCalc = this.p > 0 ? tfrcEquationKbps(this.options.packetBytes, this.rtt.ms!, this.p) : Number.POSITIVE_INFINITY;
    this.xRecv = xCalc > 2 * this.xRecv ? Math.max(this.xRecv / 2, this.packetKbits / (2 * (T_MBI_MS / 1000))) : xCalc / 4;
    // Halving X_recv halves X through min(., 2 X_recv); in slow start that needs the doubling clock to allow a step.
    this.tld = undefined;
    this.updateRate(nowMs);
  }

  private armNoFeedbackTimer(nowMs: number): void {
    const r = this.rtt.ms ?? INITIAL_NO_FEEDBACK_MS / 4;
    this.noFeedbackAtMs = nowMs + Math.max(4 * r, (2 * this.options.packetBytes * 8) / this.x);
  }
}
