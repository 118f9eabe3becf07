import type { ControlState } from '@pels/shared/pels/controlLoop';
import { bestEffortPolicy, pelsPolicy, type FlowDecision, type FlowPolicy } from '@pels/shared/pels/flowPolicy';
import type { FrameInfo } from '@pels/shared/pels/frame';
import type { FlowModeName } from '@pels/shared/protocol/api';

/** The flow policy of a mode, reading rate and gamma from the viewer's control loop. */
export function policyFor(mode: FlowModeName, control: ControlState): FlowPolicy {
  return mode === 'pels' ? pelsPolicy(control) : bestEffortPolicy(control);
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
