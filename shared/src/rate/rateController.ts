/**
 * The contract every rate controller meets, so one can replace another under
 * the same flow: the rate is the only output, the feedback events (each with
 * its own time) and an optional timer are the only inputs. Controllers are
 * pure: no clock, no I/O; whoever drives them (the server, the lab's
 * simulator, a unit test) passes time in.
 */
import type { FeedbackEvent } from '../pels/feedback';

/**
 * Loss reported per packet: the sequence numbers a receiver found missing
 * (NACK) and, filled in by the sender from its own records, when each was sent.
 */
export interface NackFeedback {
  kind: 'nack';
  lostSeqs: readonly number[];
  sendTimesMs: readonly number[];
  atMs: number;
}

/**
 * One acknowledged packet with the receiver's view of the sequence space:
 * the highest sequence number received, the highest missing one below it and
 * the highest received one below that (so a lost ACK loses no information).
 */
export interface AckFeedback {
  kind: 'ack';
  seq: number;
  sendTimeMs: number;
  atMs: number;
  lastRecv: number;
  lastMiss: number;
  prevRecv: number;
}

/** A TFRC receiver report: the rate received over the last round trip, the loss event rate, and what is needed for an RTT sample. */
export interface ReceiverReportFeedback {
  kind: 'receiver-report';
  xRecvKbps: number;
  lossEventRate: number;
  /** The send time of the newest packet the report covers, echoed. */
  echoTsMs: number;
  /** How long the receiver held that packet before reporting, ms. */
  tDelayMs: number;
  atMs: number;
}

/**
 * Queue growth seen by the receiver over one period: sum of arrival gaps over
 * sum of send gaps of consecutive packets, minus 1 (0 when the path keeps up,
 * above 0 when a queue is building).
 */
export interface DispersionFeedback {
  kind: 'dispersion';
  ratio: number;
  /** Packet pairs behind the ratio; 0 means there was nothing to measure. */
  pairs: number;
  atMs: number;
}

/** One round-trip time measurement. */
export interface RttFeedback {
  kind: 'rtt';
  rttMs: number;
  atMs: number;
}

/** The product's feedback (RTCP loss, router label), optionally with the bottleneck's capacity. */
export type LossFeedback = FeedbackEvent & { capacityKbps?: number };

export type ControllerFeedback = LossFeedback | NackFeedback | AckFeedback | ReceiverReportFeedback | DispersionFeedback | RttFeedback;
export type ControllerFeedbackKind = ControllerFeedback['kind'];

export interface RateController {
  /** Registry name, e.g. 'tfrc'. */
  readonly name: string;
  /** The sending rate now, kb/s, always within the bounds. */
  readonly rateKbps: number;
  /** The controller's round-trip estimate, ms, when it keeps one. */
  readonly rttMs: number | undefined;
  /** Events used and events of kinds this controller cannot use (or invalid ones), for stats. */
  readonly feedbackCounts: { used: number; ignored: number };
  onFeedback(ev: ControllerFeedback): void;
  /**
   * Does whatever is due at nowMs (per-RTT steps, no-feedback timers) and
   * returns when it next wants to be called; calling it early is harmless.
   */
  onTimer?(nowMs: number): number | undefined;
  /** A packet left: sequence number, size and time (controllers that keep a transmission history need this). */
  onSent?(seq: number, bytes: number, atMs: number): void;
  /** Raises the rate to kbps (never lowers it), within the bounds: a probe of what the link carries, which feedback then confirms or cuts. */
  probe?(kbps: number, atMs: number): void;
  /** True while a start-up phase runs (MKC's), for controllers that have one. */
  readonly inStartup?: boolean;
  /** The floor (base layer) and ceiling (stream rate) are measured, so they move; atMs: when (controllers that keep a rate history note it). */
  setBounds(minKbps: number, maxKbps: number, atMs?: number): void;
}

/** Bounds and start shared by every controller. */
export interface RateBounds {
  initialKbps: number;
  minKbps: number;
  maxKbps: number;
}

export function boundsErrors(minKbps: number, maxKbps: number): string[] {
  const errors: string[] = [];
  if (!(Number.isFinite(minKbps) && minKbps > 0)) errors.push(`minKbps must be a finite number > 0; got ${minKbps}`);
  if (!(Number.isFinite(maxKbps) && maxKbps >= minKbps)) errors.push(`maxKbps must be a finite number >= minKbps (${minKbps}); got ${maxKbps}`);
  return errors;
}

/** Throws a RangeError naming every problem; `what` says whose parameters they are. */
export function assertValid(what: string, errors: readonly string[]): void {
  if (errors.length > 0) throw new RangeError(`invalid ${what}: ${errors.join('; ')}`);
}

/**
 * The [min, max] a controller keeps its rate in. The floor must be above 0:
 * controllers that step by a power of the rate (binomial with k > 0) or pace
 * packets by it cannot start from nothing.
 */
export class RateRange {
  minKbps: number;
  maxKbps: number;

  constructor(minKbps: number, maxKbps: number) {
    assertValid('rate bounds', boundsErrors(minKbps, maxKbps));
    this.minKbps = minKbps;
    this.maxKbps = maxKbps;
  }

  set(minKbps: number, maxKbps: number): void {
    assertValid('rate bounds', boundsErrors(minKbps, maxKbps));
    this.minKbps = minKbps;
    this.maxKbps = maxKbps;
  }

  clamp(kbps: number): number {
    return Math.min(this.maxKbps, Math.max(this.minKbps, kbps));
  }
}

/** Counts events a controller used and ignored. */
export class FeedbackCounter {
  readonly counts = { used: 0, ignored: 0 };

  used(): void {
    this.counts.used++;
  }

  ignored(): void {
    this.counts.ignored++;
  }
}

/**
 * Exponentially weighted RTT: srtt += gain (sample - srtt). The first sample
 * replaces the fallback (a guess used until something is measured).
 */
export class SmoothedRtt {
  private value: number | undefined;

  constructor(
    private readonly gain: number,
    private readonly fallbackMs?: number,
  ) {}

  get ms(): number | undefined {
    return this.value ?? this.fallbackMs;
  }

  get measured(): boolean {
    return this.value !== undefined;
  }

  /** Samples that cannot be round trips (not finite, not positive) are dropped: false. */
  add(sampleMs: number): boolean {
    if (!(Number.isFinite(sampleMs) && sampleMs > 0)) return false;
    this.value = this.value === undefined ? sampleMs : this.value + this.gain * (sampleMs - this.value);
    return true;
  }
}
