import { BEST_EFFORT_DSCP, COLORS, DSCP, type Color } from '@pels/shared/pels/color';
import type { ControlState } from '@pels/shared/pels/controlLoop';
import { bestEffortPolicy, fixedPolicy, pelsPolicy, type FlowDecision, type FlowPolicy } from '@pels/shared/pels/flowPolicy';
import type { FrameInfo } from '@pels/shared/pels/frame';
import type { FlowModeName } from '@pels/shared/protocol/api';

/** The flow policy of a mode, reading rate and gamma from the viewer's control loop. */
export function policyFor(mode: FlowModeName, control: ControlState): FlowPolicy {
  // `nack` selects frames as best effort does: only retransmission differs.
  // `rlm` sends every frame on its layer's stream: the viewer's subscription, not a rate, limits the flow.
  if (mode === 'rlm') return fixedPolicy();
  return mode === 'pels' ? pelsPolicy(control) : bestEffortPolicy(control);
}

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

/**
 * The policy a viewer's flow holds: the operator can switch a viewer between
 * PELS and best effort, and the flow (packetizers, sequence numbers) must go
 * on unchanged. A new inner policy has a fresh frame selector, which assumes
 * no GOLDEN update was sent yet; the next TID 1 frame (a sync point) or
 * keyframe restores that, so no frame goes out without its reference.
 */
export class SwitchablePolicy implements FlowPolicy {
  constructor(private inner: FlowPolicy) {}

  get mode(): FlowPolicy['mode'] {
    return this.inner.mode;
  }

  use(policy: FlowPolicy): void {
    this.inner = policy;
  }

  decide(frame: FrameInfo, nowMs: number): FlowDecision {
    return this.inner.decide(frame, nowMs);
  }
}
