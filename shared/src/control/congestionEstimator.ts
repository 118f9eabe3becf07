/**
 * Tells congestion from wire loss in a viewer's receiver reports, so the rate
 * controller steps on congestion only (docs/decisions/002-congestion-estimate.md).
 *
 * Two bottlenecks, two signs:
 * - a PELS router drops red first, then yellow, green last, while loss on the
 *   wire (radio, a bad cable) hits every color alike. Green's loss is then
 *   the wire's, and what the enhancement layer loses beyond it is the
 *   router's: loss differentiation with a low-priority probe, which the red
 *   stream is for free;
 * - a drop-tail FIFO drops every color alike, but only once its queue is
 *   full, and a filling queue delays every packet: the round trip above the
 *   lowest one seen is the queue, and a queue is congestion whatever the
 *   colors say. It is priced like a virtual queue, so the controller backs
 *   off before the queue overflows and no standing queue is kept.
 * Wire loss is learned only from steps that show neither sign, and lost
 * packets are binomial: an excess within one standard error of the wire loss
 * is noise, not congestion (with no wire loss the tolerance is 0, and the
 * estimate is the measured loss, as before).
 *
 * Pure: the caller gives each step's loss intervals and round trip, with the time.
 */
import type { Color } from '../pels/color';
import { pooledInterval, type LossInterval } from '../pels/feedback';
import type { CongestionState, LossDiagnosis } from '../protocol/api';

export interface CongestionParams {
  /** Round trip this far above the lowest recent one is a queue (ms): wire loss is not learned, and the queue is priced. */
  queueThresholdMs: number;
  /** The queue's price: each this many ms of queue above the threshold count as a loss fraction of 1 (MKC then settles with about 50-150 ms of queue). */
  queuePriceMs: number;
  /** The lowest round trip is the lowest over this long (a route change moves it). */
  baseRttWindowMs: number;
  /** A queue delays every report, a busy receiver only some: the queue is the least of this many latest round trips. */
  rttSamples: number;
  /** Weight of the past in the wire-loss estimate, per step with packets (about the last 1 / (1 - decay) steps count). */
  wireDecay: number;
  /** Standard errors of tolerance before an excess over the wire loss counts as congestion. */
  tolerance: number;
  /** The weight of the earlier steps in the loss a step is judged on. */
  stepDecay: number;
  /** The same for green's own excess, which weighs as a floor on few packets: a stray high count must not read as a link below the base rate. */
  baseTolerance: number;
  /**
   * Green's excess is a floor only over this many packets: a player's first
   * report can count one of two packets lost, which would end MKC's start-up
   * at once. A link below the base rate drops more than that in a step.
   */
  minBasePackets: number;
  /** The wire loss the first losses are measured against, before any estimate and for this long from the first step: the worst served (the benchmark's 20%). */
  unknownWireLoss: number;
  unknownWireMs: number;
  /** Wire loss below this is none: `clear`, not `wire-loss`. */
  wireFloor: number;
  /**
   * The diagnosis pools the measured loss of recent steps (this weight of the
   * past per step) and calls it congestion when its excess over the wire loss,
   * less diagnosisTolerance standard errors, is above congestionFloor.
   */
  diagnosisDecay: number;
  diagnosisTolerance: number;
  congestionFloor: number;
  /**
   * Standard errors by which green may lose more than the enhancement and
   * still be the wire's sample: at 10% random loss a first report read green
   * 6 of 38 against the enhancement's 3 of 68 (2.1 standard errors), and
   * leaving it out kept a lucky 0 of 29 as the wire estimate.
   */
  lagTolerance: number;
  /** Enhancement loss from which the link is taken to be below the base rate: green's loss is then not the wire's. */
  starvedLoss: number;
}

export const CONGESTION_DEFAULTS: Readonly<CongestionParams> = {
  queueThresholdMs: 80,
  queuePriceMs: 1000,
  baseRttWindowMs: 60_000,
  rttSamples: 3,
  wireDecay: 0.9,
  tolerance: 1,
  stepDecay: 0.5,
  baseTolerance: 2,
  minBasePackets: 10,
  unknownWireLoss: 0.2,
  unknownWireMs: 3000,
  wireFloor: 0.005,
  starvedLoss: 0.5,
  lagTolerance: 3,
  diagnosisDecay: 0.7,
  diagnosisTolerance: 2,
  congestionFloor: 0.01,
};

/** One control step: each color's packets over the interval its reports covered, and the round trip then. */
export interface LossStep {
  atMs: number;
  intervals: Partial<Record<Color, LossInterval>>;
  /** The longest round trip of the streams that reported, ms. */
  rttMs?: number;
}

const ENHANCEMENT: readonly Color[] = ['yellow', 'red'];

/** Loss of the pooled intervals and the packets it is measured on. */
function pooled(intervals: readonly (LossInterval | undefined)[]): { loss: number; n: number } | null {
  const all = pooledInterval(intervals);
  return all ? { loss: all.lost / all.expected, n: all.expected } : null;
}

/**
 * Loss beyond the wire's: 1 - (1 - l) / (1 - w) is the share of packets that
 * passed the wire and were dropped at the queue, less the tolerance for n
 * binomial packets at loss w, and for w itself measured on wirePackets. 0 when within it.
 */
export function excessLoss(loss: number, packets: number, wire: number, tolerance: number, wirePackets = Number.POSITIVE_INFINITY): number {
  if (wire >= 1) return 0;
  // No wire loss: the loss is the queue's, exactly as measured.
  if (wire <= 0) return loss;
  const excess = 1 - (1 - loss) / (1 - wire);
  const standardError = Math.sqrt(wire * (1 - wire) * (1 / Math.max(1, packets) + 1 / Math.max(1, wirePackets))) / (1 - wire);
  return Math.max(0, Math.min(1, excess - tolerance * standardError));
}

/** The least loss among the step's colors, when green and another color reported; null otherwise. */
function leastColorLoss(intervals: LossStep['intervals']): { loss: number; n: number } | null {
  const losses = Object.values(intervals).flatMap((i) => (i && i.expected > 0 ? [{ loss: Math.max(0, i.lost) / i.expected, n: i.expected }] : []));
  if (!intervals.green || losses.length < 2) return null;
  return losses.reduce((a, b) => (b.loss < a.loss ? b : a));
}

/** Packet counts with the past weighed down by `decay` per step, and this step's added. */
function decayed(past: { lost: number; sent: number }, loss: number, packets: number, decay: number): { lost: number; sent: number } {
  return { lost: past.lost * decay + loss * packets, sent: past.sent * decay + packets };
}

export class CongestionEstimator {
  /** Decayed packet counts of green's loss on steps free of congestion: wire loss = lost / sent. */
  private wire: { lost: number; sent: number } | null = null;
  private rtts: { atMs: number; rttMs: number }[] = [];
  private recent = { lost: 0, sent: 0 };
  private pooledStep = { lost: 0, sent: 0 };
  private firstStepMs: number | null = null;
  private current: CongestionState = { diagnosis: 'clear', measuredLoss: null, congestion: null, wireLoss: null, queueDelayMs: null, baseCongestion: 0 };

  constructor(private readonly params: CongestionParams = CONGESTION_DEFAULTS) {}

  get state(): CongestionState {
    return this.current;
  }

  /** The estimate after one step; null when the step measured no packet. */
  update(step: LossStep): CongestionState | null {
    const queueDelayMs = this.queueDelay(step);
    const enhancement = pooled(ENHANCEMENT.map((c) => step.intervals[c]));
    const green = pooled([step.intervals.green]);
    // With no enhancement in flight (the rate at the base floor) green's reports drive the steps.
    const measured = enhancement ?? green;
    if (!measured) return null;
    const { tolerance } = this.params;
    const queued = queueDelayMs !== null && queueDelayMs > this.params.queueThresholdMs;
    this.firstStepMs ??= step.atMs;
    // The first wire estimate is this step's green, when it is one: the first enhancement loss is then measured against it.
    const learnedNow = !this.wire && green !== null && !queued && this.isWireSample(green, enhancement);
    if (learnedNow) this.learnWire(green.loss, green.n);
    // Before any estimate, the least of this step's colors bounds the wire's loss when green and another color reported
    // (the wire hits every color). For the first seconds, whose estimate rests on a report or two, loss up to the worst
    // wire loss served is not told from the wire's: a viewer's first reports at random loss must not end MKC's start-up
    // (an overshoot at a PELS router drops far more red, and a queue says congestion whatever the estimate). After
    // them, with no estimate (green alone), all loss is the queue's.
    const early = !queued && step.atMs - this.firstStepMs < this.params.unknownWireMs;
    const least = queued ? null : leastColorLoss(step.intervals);
    const estimate = this.wireLoss ?? least?.loss ?? 0;
    const wire = early ? Math.max(estimate, this.params.unknownWireLoss) : estimate;
    const wirePackets = early ? Number.POSITIVE_INFINITY : (this.wire?.sent ?? least?.n ?? Number.POSITIVE_INFINITY);
    const price = queued ? (queueDelayMs - this.params.queueThresholdMs) / this.params.queuePriceMs : 0;
    // Green's excess says the link is below the base rate.
    const baseCongestion = green && green.n >= this.params.minBasePackets ? excessLoss(green.loss, green.n, wire, this.params.baseTolerance, wirePackets) : 0;
    // Green is served first: a lower enhancement figure only means its losses are not reported yet, so green's is a floor.
    // Under wire loss the step's loss is pooled with the last step's at half weight: a stray high count is measured on
    // more packets, so less of it passes the tolerance, while a router's drops, which go on, count in full. With no
    // wire loss the step's own loss is the queue's, as measured.
    this.pooledStep = decayed(this.pooledStep, measured.loss, measured.n, this.params.stepDecay);
    const judged = wire > 0 ? { loss: this.pooledStep.lost / this.pooledStep.sent, n: this.pooledStep.sent } : measured;
    const congestion = Math.min(1, Math.max(excessLoss(judged.loss, judged.n, wire, tolerance, wirePackets), baseCongestion, price));
    if (green && !queued && !learnedNow && this.isWireSample(green, enhancement)) this.learnWire(green.loss, green.n);
    const wireLoss = this.wireLoss ?? 0;
    // The diagnosis tests the loss of the last few steps pooled, at a wider tolerance: one step's stray excess flips no decision.
    this.recent = decayed(this.recent, measured.loss, measured.n, this.params.diagnosisDecay);
    const recentExcess = excessLoss(this.recent.lost / this.recent.sent, this.recent.sent, wireLoss, this.params.diagnosisTolerance, wirePackets);
    const congested = queued || recentExcess > this.params.congestionFloor;
    const diagnosis: LossDiagnosis = congested ? 'congestion' : wireLoss >= this.params.wireFloor ? 'wire-loss' : congestion > 0 ? 'congestion' : 'clear';
    this.current = { diagnosis, measuredLoss: measured.loss, congestion, wireLoss, queueDelayMs, baseCongestion };
    return this.current;
  }

  private get wireLoss(): number | null {
    return this.wire && this.wire.sent > 0 ? this.wire.lost / this.wire.sent : null;
  }

  /**
   * Green's loss is the wire's whatever the enhancement lost (learning only on
   * steps read as free of congestion would keep the noisy low samples and drop
   * the high ones), unless the link is below the base rate: the enhancement
   * starved, or green losing clearly more than the enhancement, which a
   * network serving green first does only while the enhancement's losses are
   * not reported yet. Green alone (the rate at the base floor) has nothing to
   * be told apart from.
   */
  private isWireSample(green: { loss: number; n: number }, enhancement: { loss: number; n: number } | null): boolean {
    if (!enhancement || enhancement.loss >= this.params.starvedLoss) return false;
    const p = (green.loss * green.n + enhancement.loss * enhancement.n) / (green.n + enhancement.n);
    const standardError = Math.sqrt(p * (1 - p) * (1 / green.n + 1 / enhancement.n));
    return green.loss - enhancement.loss <= this.params.lagTolerance * standardError;
  }

  private learnWire(loss: number, packets: number): void {
    this.wire = decayed(this.wire ?? { lost: 0, sent: 0 }, loss, packets, this.params.wireDecay);
  }

  /** Round trip above the lowest one of the window, from the least of the latest few; null until one is measured. */
  private queueDelay(step: LossStep): number | null {
    if (step.rttMs !== undefined && Number.isFinite(step.rttMs) && step.rttMs > 0) this.rtts.push({ atMs: step.atMs, rttMs: step.rttMs });
    const since = step.atMs - this.params.baseRttWindowMs;
    while (this.rtts.length > this.params.rttSamples && this.rtts[0]!.atMs < since) this.rtts.shift();
    if (this.rtts.length === 0) return this.current.queueDelayMs;
    const base = Math.min(...this.rtts.map((r) => r.rttMs));
    const latest = Math.min(...this.rtts.slice(-this.params.rttSamples).map((r) => r.rttMs));
    return latest - base;
  }
}
