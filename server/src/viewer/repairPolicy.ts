/**
 * Which colors PELS repairs (retransmits) now, from the viewer's loss
 * diagnosis and its rate's headroom. Pure: the caller keeps the state.
 *
 * Green is always repaired. Under congestion yellow and red are not: PELS lets
 * the bottleneck drop them, and a retransmission would take the place of a
 * newer packet in its queue. Loss on the wire is no queue's doing: there a
 * retransmission pays when the rate has room for it (yellow first, red with it,
 * as coloring fills red with the least important frames). The room is the rate
 * controller's rate above what is sent, against the retransmissions expected:
 * each lost packet once more, itself lost as often, p/(1-p) of the sent bytes.
 * What is sent is smoothed over a few readings: frame selection keeps it at
 * the rate on average but not second by second (keyframes, rendition moves),
 * and a rate-limited flow has no room however its last second looked.
 * Congestion closes them at once; each time an opening ends (congestion, or
 * the room gone), the next one waits for a run of wire-loss readings twice as
 * long (a calm spell relaxes it), so a wavering reading does not flap the gate.
 */
import type { Color } from '@pels/shared/pels/color';
import type { CongestionState } from '@pels/shared/protocol/api';

/** Wire-loss readings in a row before a color opens at first: one reading may be the start of a queue the next shows. */
export const OPEN_AFTER_STEPS = 2;
/** An opening that ends doubles the readings the next one waits for, up to this: a wavering diagnosis or room does not flap the gate. */
export const MAX_OPEN_AFTER_STEPS = 16;
/** Readings in a row without congestion that halve that wait again. */
export const RELAX_STEPS = 20;
/** Opening asks this much more room than staying open asks, so a rate wobbling around the need does not flap the gate. */
const OPEN_MARGIN = 1.5;
/** The sent rate is a mean over about this many readings (exponential, weight 1/n, past the first n), and a color opens only once that many came. */
export const SENT_READINGS = 5;

export interface RepairInput {
  congestion: Pick<CongestionState, 'diagnosis' | 'wireLoss'>;
  /** The rate controller's rate, kb/s. */
  rateKbps: number;
  /** Media sent over the last second, per color, kb/s (retransmissions not counted). */
  sentKbps: Record<Color, number>;
}

export interface RepairState {
  /** The colors repaired: green, then yellow, then red. */
  repaired: Color[];
  /** Wire-loss readings in a row, up to the latest, since the last closing. */
  wireLossSteps: number;
  /** The wire-loss readings in a row a closed color waits for. */
  openAfter: number;
  /** Readings without congestion since the last congestion or relaxation. */
  calmSteps: number;
  /** The sent rate per color, smoothed, kb/s, and over how many readings (up to the ones that count). */
  sent: { kbps: Record<Color, number>; readings: number } | null;
}

export const INITIAL_REPAIR: RepairState = { repaired: ['green'], wireLossSteps: 0, openAfter: OPEN_AFTER_STEPS, calmSteps: 0, sent: null };

/** The next state at a fresh diagnosis (one per control step). */
export function nextRepair(prev: RepairState, input: RepairInput): RepairState {
  const { diagnosis } = input.congestion;
  const congested = diagnosis === 'congestion';
  const relax = !congested && prev.calmSteps + 1 >= RELAX_STEPS;
  const next: RepairState = {
    repaired: ['green'],
    wireLossSteps: diagnosis === 'wire-loss' ? prev.wireLossSteps + 1 : 0,
    openAfter: relax ? Math.max(OPEN_AFTER_STEPS, prev.openAfter / 2) : prev.openAfter,
    calmSteps: congested || relax ? 0 : prev.calmSteps + 1,
    sent: smoothed(prev.sent, input.sentKbps),
  };
  if (!congested) next.repaired.push(...roomFor(prev, next, input));
  // An opening that did not last (congestion, or the room gone): the next one waits for a run twice as long.
  if (next.repaired.length < prev.repaired.length) {
    next.openAfter = Math.min(MAX_OPEN_AFTER_STEPS, 2 * prev.openAfter);
    next.wireLossSteps = 0;
  }
  return next;
}

/** The enhancement colors the room covers, yellow then red: kept while it covers their need, opened with a margin after a wire-loss run. */
function roomFor(prev: RepairState, next: RepairState, input: RepairInput): Color[] {
  const p = input.congestion.wireLoss ?? NaN;
  // Unknown wire loss: what retransmission would cost is unknown too.
  if (!(p >= 0 && p < 1) || !(input.rateKbps >= 0) || !next.sent) return [];
  const { kbps, readings } = next.sent;
  const room = input.rateKbps - kbps.green - kbps.yellow - kbps.red;
  const overhead = p / (1 - p);
  const out: Color[] = [];
  // Green's own retransmissions are taken in any case: each further color must fit with them.
  let needKbps = overhead * kbps.green;
  for (const color of ['yellow', 'red'] as const) {
    needKbps += overhead * kbps[color];
    const fits = prev.repaired.includes(color)
      ? room >= needKbps
      : next.wireLossSteps >= next.openAfter && readings >= SENT_READINGS && room >= OPEN_MARGIN * needKbps;
    if (!fits) break;
    out.push(color);
  }
  return out;
}

/** The smoothed sent rate with a new reading; a reading that is not a rate is left out. */
function smoothed(past: RepairState['sent'], latest: Record<Color, number>): RepairState['sent'] {
  if (![latest.green, latest.yellow, latest.red].every((k) => k >= 0 && k < Infinity)) return past;
  if (!past) return { kbps: { ...latest }, readings: 1 };
  // The plain mean until enough readings came: the first one alone would weigh for many.
  const readings = Math.min(SENT_READINGS, past.readings + 1);
  const mix = (c: Color) => past.kbps[c] + (latest[c] - past.kbps[c]) / readings;
  return { kbps: { green: mix('green'), yellow: mix('yellow'), red: mix('red') }, readings };
}
