import type { Color } from './color';
import { EnhancementColoring } from './coloring';
import type { ControlState } from '../control/controlLoop';
import { isBase, type FrameInfo } from './frame';
import { FrameSelector, type FrameSelectionParams } from './frameSelection';

/** How a flow policy decides frames: PELS selection and coloring, best effort's selection with each layer on its color, or every frame. */
export type PolicyKind = 'pels' | 'fixed' | 'best-effort';

/** Whether a frame goes out, and on which color's RTP stream. */
export interface FlowDecision {
  send: boolean;
  /** Meaningful only when send is true; a skipped frame reports 'red', the least important class. */
  color: Color;
}

/** Per-viewer decision for each frame, in encoder order. */
export interface FlowPolicy {
  readonly kind: PolicyKind;
  decide(frame: FrameInfo, nowMs: number): FlowDecision;
}

const SKIP: FlowDecision = { send: false, color: 'red' };

/**
 * PELS: frame selection fits the viewer's MKC rate, then coloring makes the
 * gamma share of sent enhancement bytes red. Rate and gamma are read from the
 * control state at every frame, so feedback takes effect at the next frame.
 */
export function pelsPolicy(control: ControlState, selection: Partial<FrameSelectionParams> = {}): FlowPolicy {
  const selector = new FrameSelector(selection);
  const coloring = new EnhancementColoring();
  return {
    kind: 'pels',
    decide(frame, nowMs) {
      if (!selector.select(frame, nowMs, control.rateKbps)) return SKIP;
      return { send: true, color: coloring.color(frame, control.gamma) };
    },
  };
}

/** The walking skeleton's split: everything sent, colored by layer (TID 0 green, 1 yellow, 2 red). */
export function fixedPolicy(): FlowPolicy {
  return {
    kind: 'fixed',
    decide: (frame) => ({ send: true, color: isBase(frame) ? 'green' : frame.temporalId === 1 ? 'yellow' : 'red' }),
  };
}

/**
 * Best effort, for comparison: the same rate control and frame selection as
 * PELS, and each layer on its own stream (TID 0 green, 1 yellow, 2 red) so
 * per-layer loss stays measurable, but no gamma coloring. The server marks all
 * three streams with one DSCP, so the network cannot tell them apart.
 */
export function bestEffortPolicy(control: ControlState, selection: Partial<FrameSelectionParams> = {}): FlowPolicy {
  const selector = new FrameSelector(selection);
  const layers = fixedPolicy();
  return {
    kind: 'best-effort',
    decide(frame, nowMs) {
      if (!selector.select(frame, nowMs, control.rateKbps)) return SKIP;
      return layers.decide(frame, nowMs);
    },
  };
}
