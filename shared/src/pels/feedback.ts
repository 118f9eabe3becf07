/**
 * The one input of the PELS controllers. RTCP receiver reports and the router
 * agent (paper section 5.2) both become FeedbackEvents, and a FreshnessGuard
 * lets each measurement drive at most one control step, like the paper's
 * epoch number z: duplicates and reordered (older) feedback are ignored.
 */

export type FeedbackKind = 'rtcp' | 'router';

export interface FeedbackEvent {
  kind: FeedbackKind;
  /**
   * Increases with every new measurement of one origin. RTCP: the extended
   * highest sequence number received (when yellow and red are pooled, the sum
   * of both: it grows whenever either stream has news). Router: its sample
   * counter z.
   */
  epoch: number;
  /**
   * RTCP: loss of the enhancement layer (yellow + red) in [0, 1].
   * Router: (R - C) / R (eq. 11), at most 1 and negative below capacity.
   */
  lossFraction: number;
  /** When the feedback arrived, ms. */
  atMs: number;
  /**
   * Who numbered the epoch (router ID, SSRC); epochs compare only within one
   * origin, so a new bottleneck router is heard at once. Default ''.
   */
  origin?: string;
  /** When the measured traffic was sent, ms; MKC steps from the rate in effect then (eq. 8). Default: the current rate. */
  sentAtMs?: number;
  /** RTCP: loss of the base layer (green) over the same interval, when green reported; any ends MKC's start-up. */
  baseLossFraction?: number;
  /** RTCP: the longest round trip among the streams that reported (the lowest-priority queue's delay shows there), ms. */
  rttMs?: number;
}

export type FeedbackVerdict = 'fresh' | 'stale' | 'invalid';

/** Why an event can never be a valid measurement, or undefined. */
function invalidReason(ev: FeedbackEvent): string | undefined {
  if (!Number.isFinite(ev.epoch)) return 'epoch';
  if (!Number.isFinite(ev.atMs)) return 'atMs';
  if (!(Number.isFinite(ev.lossFraction) && ev.lossFraction <= 1)) return 'lossFraction';
  if (ev.kind === 'rtcp' && ev.lossFraction < 0) return 'lossFraction';
  if (ev.sentAtMs !== undefined && !(Number.isFinite(ev.sentAtMs) && ev.sentAtMs <= ev.atMs)) return 'sentAtMs';
  if (ev.baseLossFraction !== undefined && !(ev.baseLossFraction >= 0 && ev.baseLossFraction <= 1)) return 'baseLossFraction';
  if (ev.rttMs !== undefined && !(Number.isFinite(ev.rttMs) && ev.rttMs >= 0)) return 'rttMs';
  return undefined;
}

/** Accepts each (kind, origin, epoch) once and only moving forward. */
export class FreshnessGuard {
  private readonly lastEpoch = new Map<string, number>();

  check(ev: FeedbackEvent): FeedbackVerdict {
    if (invalidReason(ev) !== undefined) return 'invalid';
    const key = `${ev.kind}:${ev.origin ?? ''}`;
    const last = this.lastEpoch.get(key);
    if (last !== undefined && ev.epoch <= last) return 'stale';
    this.lastEpoch.set(key, ev.epoch);
    return 'fresh';
  }
}

/**
 * The enhancement-layer loss eq. 4 (gamma) needs, from router feedback.
 * p = (R - C) / R (eq. 11) is the share of all PELS bytes the bottleneck
 * drops, and PELS drops only enhancement bytes, so a flow sending r kb/s with
 * a base layer of b kb/s loses p * r / (r - b) of its enhancement layer.
 * Given p itself, gamma settles at p / p_thr and the red loss at
 * p_thr * r / (r - b) instead of p_thr (Lemma 4), past 100% (yellow loss)
 * once the base is more than 1 - p_thr of the rate. Spare capacity (p <= 0)
 * passes through; with no enhancement sent (r <= b) any loss is base loss: 1.
 */
export function routerEnhancementLoss(p: number, rateKbps: number, baseKbps: number): number {
  if (p <= 0) return p;
  if (rateKbps <= baseKbps) return 1;
  return Math.min(1, (p * rateKbps) / (rateKbps - baseKbps));
}

/** One stream's packets over a report interval (deltas of RTCP counters). */
export interface LossInterval {
  expected: number;
  lost: number;
}

/** The intervals as one: packets summed, negative counts (duplicates) as 0; undefined when none was expected. */
export function pooledInterval(intervals: readonly (LossInterval | undefined)[]): LossInterval | undefined {
  let expected = 0;
  let lost = 0;
  for (const i of intervals) {
    if (!i) continue;
    expected += Math.max(0, i.expected);
    lost += Math.max(0, i.lost);
  }
  return expected > 0 ? { expected, lost: Math.min(expected, lost) } : undefined;
}

/**
 * Enhancement-layer loss from the yellow and red intervals, pooled by packets
 * (not an average of fractions, so the busier stream weighs more). Undefined
 * when no packet was expected: there is no measurement.
 */
export function pooledLoss(intervals: readonly LossInterval[]): number | undefined {
  const all = pooledInterval(intervals);
  return all && all.lost / all.expected;
}
