import { BEST_EFFORT_DSCP, COLORS, DSCP, type Color } from '@pels/shared/pels/color';
import type { FlowModeName } from '@pels/shared/protocol/api';

/** PELS marks each color's drop precedence; the other modes mark all streams alike. */
export function dscpFor(mode: FlowModeName, color: Color): number {
  return mode === 'pels' ? DSCP[color] : BEST_EFFORT_DSCP;
}

/**
 * The color streams a mode retransmits (NACK + RTX). PELS protects the base
 * layer only: a lost enhancement packet is meant to stay lost, and a retransmitted
 * red packet would take a place in the bottleneck's queue from a newer one.
 */
export function retransmittedColors(mode: FlowModeName): Color[] {
  if (mode === 'pels') return ['green'];
  return mode === 'nack' ? [...COLORS] : [];
}

/**
 * Retransmission is set on the consumers at consume and cannot change later
 * (mediasoup fixes a consumer's RTP parameters, and the player's receivers with
 * them). A switch that would need other retransmission than a viewer consumed
 * with is refused: the reason, or null when the switch is allowed.
 * Between `pels` and `best-effort` a viewer keeps what it consumed with. A
 * consuming viewer cannot switch to or from `rlm` either.
 */
export function modeSwitchRefusal(from: FlowModeName, to: FlowModeName, consuming: boolean): string | null {
  if (!consuming || from === to) return null;
  // Under `rlm` the player chooses the layers: a player that joined otherwise would get every frame with no control at all.
  if (from === 'rlm' || to === 'rlm') return `cannot switch a consuming viewer ${to === 'rlm' ? 'to' : 'from'} rlm: receiver-driven layers run in the player, chosen when it joins`;
  if (from !== 'nack' && to !== 'nack') return null;
  return `cannot switch a consuming viewer ${to === 'nack' ? 'to' : 'from'} nack: retransmission is set when the viewer starts consuming`;
}
