/**
 * A viewer's flow mode (`FLOW_MODES`: pels, best-effort, nack, rlm) as one
 * profile: how its frames are chosen and colored, how its color streams are
 * marked and repaired, and who drives its rate. Every rule that depends on the
 * mode reads the profile, not the mode's name.
 */
import { bestEffortPolicy, fixedPolicy, pelsPolicy, type FlowPolicy, type PolicyKind } from '../pels/flowPolicy';
import type { FlowModeName } from '../protocol/api';
import type { ControlState } from './controlLoop';

export interface FlowMode {
  name: FlowModeName;
  /** The flow policy deciding each frame (shared/src/pels/flowPolicy.ts). */
  policy: PolicyKind;
  /** Each color stream marked with its own drop precedence (AF41, AF42, AF43); otherwise all alike (best effort). */
  marksColors: boolean;
  /**
   * The color streams consumed with retransmission (NACK + RTX): `repair` green always and yellow when it pays
   * (repairPolicy.ts), `all` every color, `none` no color.
   */
  retransmission: 'repair' | 'all' | 'none';
  /**
   * The player chooses its layers (setColors) by experiment: the server sends every frame of what it subscribed,
   * with no useless-packet gate, and a consuming viewer cannot switch to or from this mode.
   */
  receiverDriven: boolean;
}

const FLOW_MODE_PROFILES: Readonly<Record<FlowModeName, FlowMode>> = {
  pels: { name: 'pels', policy: 'pels', marksColors: true, retransmission: 'repair', receiverDriven: false },
  'best-effort': { name: 'best-effort', policy: 'best-effort', marksColors: false, retransmission: 'none', receiverDriven: false },
  // Selects frames as best effort does: only retransmission differs.
  nack: { name: 'nack', policy: 'best-effort', marksColors: false, retransmission: 'all', receiverDriven: false },
  // Every frame on its layer's stream: the viewer's subscription, not a rate, limits the flow.
  rlm: { name: 'rlm', policy: 'fixed', marksColors: false, retransmission: 'none', receiverDriven: true },
};

export const flowMode = (name: FlowModeName): FlowMode => FLOW_MODE_PROFILES[name];

/** The flow policy of a mode, reading rate and gamma from the viewer's control loop. */
export function policyFor(mode: FlowModeName, control: ControlState): FlowPolicy {
  const kind = flowMode(mode).policy;
  return kind === 'pels' ? pelsPolicy(control) : kind === 'fixed' ? fixedPolicy() : bestEffortPolicy(control);
}
