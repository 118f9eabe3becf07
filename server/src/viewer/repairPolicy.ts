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
 * Congestion closes them at once; each time it closes an opening, the next
 * one waits for a run of wire-loss readings twice as long (a calm spell
 * relaxes it), so a diagnosis that wavers does not flap the gate.
 */
import type { Color } from '@pels/shared/pels/color';
import type { CongestionState } from '@pels/shared/protocol/api';

/** Wire-loss readings in a row before a color opens at first: one reading may be the start of a queue the next shows. */
export const OPEN_AFTER_STEPS = 2;
/** Congestion that closes an opening doubles the readings the next one waits for, up to this: a wavering diagnosis does not flap the gate. */
export const MAX_OPEN_AFTER_STEPS = 16;
/** Readings in a row without congestion that halve that wait again. */
export const RELAX_STEPS = 20;
/** Opening asks this much more room than staying open asks, so a rate wobbling around the need does not flap the gate. */
export const OPEN_MARGIN = 1.5;

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
  /** Wire-loss readings in a row, up to the latest. */
  wireLossSteps: number;
  /** The wire-loss readings in a row a closed color waits for. */
  openAfter: number;
  /** Readings without congestion since the last congestion or relaxation. */
  calmSteps: number;
}

export const INITIAL_REPAIR: RepairState = { repaired: ['green'], wireLossSteps: 0, openAfter: OPEN_AFTER_STEPS, calmSteps: 0 };

/** The next state at a fresh diagnosis (one per control step). */
export function nextRepair(prev: RepairState, input: RepairInput): RepairState {
  const { diagnosis, wireLoss } = input.congestion;
  if (diagnosis === 'congestion') {
    const closing = prev.repaired.length > 1;
    return { repaired: ['green'], wireLossSteps: 0, openAfter: closing ? Math.min(MAX_OPEN_AFTER_STEPS, 2 * prev.openAfter) : prev.openAfter, calmSteps: 0 };
  }
  const relax = prev.calmSteps + 1 >= RELAX_STEPS;
  const next: RepairState = {
    repaired: ['green'],
    wireLossSteps: diagnosis === 'wire-loss' ? prev.wireLossSteps + 1 : 0,
    openAfter: relax ? Math.max(OPEN_AFTER_STEPS, prev.openAfter / 2) : prev.openAfter,
    calmSteps: relax ? 0 : prev.calmSteps + 1,
  };
  const p = wireLoss ?? NaN;
  const sent = input.sentKbps;
  // Unknown wire loss: what retransmission would cost is unknown too.
  if (!(p >= 0 && p < 1) || !(input.rateKbps >= 0) || ![sent.green, sent.yellow, sent.red].every((k) => k >= 0)) return next;
  const room = input.rateKbps - sent.green - sent.yellow - sent.red;
  const overhead = p / (1 - p);
  // Green's own retransmissions are taken in any case: each further color must fit with them.
  let needKbps = overhead * sent.green;
  for (const color of ['yellow', 'red'] as const) {
    needKbps += overhead * sent[color];
    const open = prev.repaired.includes(color);
    const fits = open ? room >= needKbps : next.wireLossSteps >= next.openAfter && room >= OPEN_MARGIN * needKbps;
    if (!fits) break;
    next.repaired.push(color);
  }
  return next;
}
