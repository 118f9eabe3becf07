import { bestEffortPolicy, pelsPolicy, type FlowPolicy } from '../pels/flowPolicy';
import type { FlowModeName } from '../protocol/api';
import type { ControlState } from './controlLoop';

/** The flow policy of a mode, reading rate and gamma from the viewer's control loop. */
export function policyFor(mode: FlowModeName, control: ControlState): FlowPolicy {
  // `nack` selects frames as best effort does: only retransmission differs.
  return mode === 'pels' ? pelsPolicy(control) : bestEffortPolicy(control);
}
