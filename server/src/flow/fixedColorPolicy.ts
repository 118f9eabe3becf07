import type { FramePolicy } from './viewerFlow';

/** The walking skeleton's split: every frame sent, colored by its temporal layer. */
export function fixedColorPolicy(): FramePolicy {
  return {
    decide: (frame) => ({ send: true, color: frame.keyframe || frame.temporalId === 0 ? 'green' : frame.temporalId === 1 ? 'yellow' : 'red' }),
  };
}
