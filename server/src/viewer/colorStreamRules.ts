/**
 * How a viewer's color streams are marked and repaired, and which mode
 * switches its consumers allow, as its flow mode's profile says
 * (shared/src/control/flowMode.ts).
 */
import { BEST_EFFORT_DSCP, COLORS, DSCP, type Color } from '@pels/shared/pels/color';
import { flowMode } from '@pels/shared/control/flowMode';
import type { FlowModeName } from '@pels/shared/protocol/api';

/** A mode that marks colors gives each its drop precedence; the others mark all streams alike. */
export function dscpFor(mode: FlowModeName, color: Color): number {
  return flowMode(mode).marksColors ? DSCP[color] : BEST_EFFORT_DSCP;
}

/**
 * A color's retransmissions. Green's are green: the base layer must arrive.
 * Yellow's and red's are red under PELS: they pass only while the loss reads
 * as wire loss, and at the moment a queue builds (a rendition's probe, a
 * capacity drop) they would otherwise fill yellow's queue with repairs of the
 * very packets it dropped (one run at 700 kb/s with 5% random loss lost 41%
 * of yellow at the router). Red's queue drops them first.
 */
export function rtxDscpFor(mode: FlowModeName, color: Color): number {
  return dscpFor(mode, color === 'green' ? 'green' : 'red');
}

/**
 * The color streams consumed with retransmission (NACK + RTX), fixed from then
 * on. Repair (PELS) covers green always and yellow when it pays (repairPolicy.ts),
 * with yellow's retransmissions marked red (`gated`: the kernel marks them,
 * RtxGate); without marking, green only, so a lost enhancement packet stays
 * lost as PELS intends. Red is never repaired: a congested PELS
 * bottleneck drops most of red by design, and the receivers' requests for it
 * brought retransmission storms that pushed 10 synthetic viewers' rates to
 * 0.50-1.64 of MKC's stationary point (0.91-1.08 with red left out).
 */
export function retransmittedColors(mode: FlowModeName, gated: boolean): Color[] {
  const r = flowMode(mode).retransmission;
  if (r === 'repair') return gated ? ['green', 'yellow'] : ['green'];
  return r === 'all' ? [...COLORS] : [];
}

/**
 * Of the colors consumed with retransmission, those whose retransmissions
 * pass in `mode`: all where every color is retransmitted (nack), green and the
 * repair policy's where it repairs (PELS), green only otherwise (what a viewer
 * switched from PELS to best effort kept).
 */
export function passingColors(mode: FlowModeName, consumed: readonly Color[], repaired: readonly Color[]): Color[] {
  const r = flowMode(mode).retransmission;
  return consumed.filter((c) => r === 'all' || c === 'green' || (r === 'repair' && repaired.includes(c)));
}

/**
 * Retransmission is set on the consumers at consume and cannot change later
 * (mediasoup fixes a consumer's RTP parameters, and the player's receivers with
 * them); the gate only holds back retransmissions made. So a switch to a mode
 * that retransmits every color needs every color consumed with RTX, and a
 * switch from one the gate, to hold back yellow's and red's. `consumed`: the
 * colors consumed with RTX, null before consume. The reason a switch is
 * refused, or null when it is allowed. A consuming viewer cannot switch to or
 * from a receiver-driven mode either.
 */
export function modeSwitchRefusal(from: FlowModeName, to: FlowModeName, consumed: readonly Color[] | null, gated: boolean): string | null {
  if (!consumed || from === to) return null;
  // A receiver-driven mode runs in the player: a player that joined otherwise would get every frame with no control at all.
  if (flowMode(from).receiverDriven || flowMode(to).receiverDriven) {
    const [dir, mode] = flowMode(to).receiverDriven ? ['to', to] : ['from', from];
    return `cannot switch a consuming viewer ${dir} ${mode}: receiver-driven layers run in the player, chosen when it joins`;
  }
  if (flowMode(to).retransmission === 'all' && consumed.length < COLORS.length) {
    return `cannot switch a consuming viewer to ${to}: retransmission is set when the viewer starts consuming, and it consumed ${consumed.length ? `only ${consumed.join(', ')}` : 'none'} with it`;
  }
  if (flowMode(from).retransmission === 'all' && !gated) {
    return `cannot switch a consuming viewer from ${from}: retransmission is set when the viewer starts consuming, and without nftables its yellow and red retransmissions cannot be held back`;
  }
  return null;
}
