import { bestEffortPolicy, fixedPolicy, pelsPolicy, type FlowPolicy } from '../pels/flowPolicy';
import type { FlowModeName } from '../protocol/api';
import type { ControlState } from './controlLoop';

/** The flow policy of a mode, reading rate and gamma from the viewer's control loop. */
export function policyFor(mode: FlowModeName, control: ControlState): FlowPolicy {
  // `nack` selects frames as best effort does: only retransmission differs.
  // `rlm` sends every frame on its layer's stream: the viewer's subscription, not a rate, limits the flow.
  if (mode === 'rlm') return fixedPolicy();
  return mode === 'pels' ? pelsPolicy(control) : bestEffortPolicy(control);
}
