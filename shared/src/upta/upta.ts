/**
 * Useless-packet transmission avoidance (UPTA): a router stops forwarding a
 * multimedia flow whose loss at the current fair share would leave it
 * unintelligible, and so frees that bandwidth for the other flows. Pure: the
 * lab's schedulers and the testbed's router agent both decide with it.
 *
 * The share is max-min (water-filling) over the flows' arrival rates measured
 * before any UPTA drop, so a flow being dropped still counts as a competitor:
 * otherwise its removal would raise the share above its rate, end the drop,
 * and the decision would oscillate.
 */

/**
 * A flow's arrival rate by exponential averaging over packet inter-arrival
 * times (as core-stateless fair queueing estimates it): r = (1 - e^(-T/K)) l/T + e^(-T/K) r.
 */
export class ArrivalRate {
  private kbps = 0;
  private lastMs: number | undefined;
  /** Bytes that arrived at the same instant as the previous packet, not yet counted. */
  private pendingBytes = 0;

  constructor(private readonly averagingMs: number) {
    if (!(averagingMs > 0)) throw new RangeError(`averaging constant must be > 0 ms; got ${averagingMs}`);
  }

  /** Counts a packet of `bytes` arriving at nowMs; returns the new estimate, kb/s. */
  add(bytes: number, nowMs: number): number {
    if (this.lastMs === undefined) {
      this.lastMs = nowMs;
      this.kbps = 0;
      return this.kbps;
    }
    const gapMs = nowMs - this.lastMs;
    this.lastMs = nowMs;
    if (gapMs <= 0) {
      // Back-to-back arrivals: their bits land in the next gap's l/T.
      this.pendingBytes += bytes;
      return this.kbps;
    }
    const w = Math.exp(-gapMs / this.averagingMs);
    this.kbps = (1 - w) * (((bytes + this.pendingBytes) * 8) / gapMs) + w * this.kbps;
    this.pendingBytes = 0;
    return this.kbps;
  }

  /** The estimate at nowMs: decayed as if an empty packet arrived then, so a flow that stopped fades out. */
  at(nowMs: number): number {
    if (this.lastMs === undefined || nowMs <= this.lastMs) return this.kbps;
    return this.kbps * Math.exp(-(nowMs - this.lastMs) / this.averagingMs);
  }
}

/** The max-min fair share f of `capacity` among `demands`: sum(min(d, f)) = capacity; Infinity when all demands fit. */
export function maxMinShare(demands: readonly number[], capacity: number): number {
  const sorted = demands.filter((d) => d > 0).sort((a, b) => a - b);
  let left = capacity;
  for (let i = 0; i < sorted.length; i++) {
    const share = left / (sorted.length - i);
    if (sorted[i]! >= share) return share;
    left -= sorted[i]!;
  }
  return Number.POSITIVE_INFINITY;
}

/** The loss a flow arriving at `rateKbps` must see to fit in `shareKbps`: max(0, 1 - f / r). */
export function lossAtShare(rateKbps: number, shareKbps: number): number {
  return rateKbps > 0 ? Math.max(0, 1 - shareKbps / rateKbps) : 0;
}

/** UPTA's rule: the flow's packets are useless while that loss exceeds its intelligibility threshold q. */
export function isUseless(rateKbps: number, shareKbps: number, threshold: number): boolean {
  return lossAtShare(rateKbps, shareKbps) > threshold;
}

/**
 * UPTA's decision for one flow from noisy periodic measurements: drop as soon
 * as the loss at the share exceeds q; stop only once it has stayed below
 * `releaseShare` x q for `releaseMs`, so measurement noise near q does not
 * switch the flow on and off.
 */
export class UselessFlowGate {
  private dropping = false;
  private belowSinceMs: number | undefined;

  constructor(
    private readonly threshold: number,
    private readonly releaseShare = 0.8,
    private readonly releaseMs = 1000,
  ) {
    if (!(threshold > 0 && threshold < 1)) throw new RangeError(`loss threshold must be in (0, 1); got ${threshold}`);
  }

  get isDropping(): boolean {
    return this.dropping;
  }

  /** The flow's loss at its fair share now; returns whether its packets are to be dropped. */
  update(loss: number, nowMs: number): boolean {
    if (loss > this.threshold) {
      this.dropping = true;
      this.belowSinceMs = undefined;
    } else if (this.dropping) {
      if (loss >= this.releaseShare * this.threshold) this.belowSinceMs = undefined;
      else if (this.belowSinceMs === undefined) this.belowSinceMs = nowMs;
      else if (nowMs - this.belowSinceMs >= this.releaseMs) this.dropping = false;
    }
    return this.dropping;
  }
}
