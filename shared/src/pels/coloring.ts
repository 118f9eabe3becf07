import type { Color } from './color';
import { isBase, type FrameInfo } from './frame';

/**
 * PELS coloring (paper section 4.2) for whole frames. Base frames are green.
 * Of the enhancement bytes sent, the least important gamma share is red and
 * the rest yellow; importance follows dependency, so TID 2 frames go red before
 * TID 1 frames. Frames are indivisible, so a running byte balance carries the
 * rounding from frame to frame:
 *
 *   owed = debt + gamma * bytes            (the red bytes this frame brings due)
 *   TID 2: red iff owed > 0                (TID 2 absorbs red first)
 *   TID 1: red iff owed >= bytes           (only debt that TID 2 frames could not absorb)
 *   debt  = owed - (red ? bytes : 0)
 *
 * The debt stays within about one frame (-TID 2 size < debt < TID 1 size), so
 * the red share of sent enhancement bytes tracks the byte-weighted gamma, and
 * gamma may change between frames. While gamma is below the TID 2 byte share,
 * TID 2 frames pay off the debt before it reaches a TID 1 frame's size, so TID 1
 * stays yellow; above it, every TID 2 frame is red and the debt grows until a
 * TID 1 frame goes red. A TID 1 frame goes red only with debt >= 0 left over,
 * so (for gamma > 0) the TID 2 frame that references it goes red too.
 */
export class EnhancementColoring {
  private debt = 0;

  /** Color of a frame that will be sent; call it for sent frames only (the share counts sent bytes). */
  color(frame: Pick<FrameInfo, 'temporalId' | 'keyframe' | 'bytes'>, gamma: number): Color {
    if (!(gamma >= 0 && gamma <= 1)) throw new RangeError(`gamma must be in [0, 1]; got ${gamma}`);
    if (isBase(frame)) return 'green';
    const owed = this.debt + gamma * frame.bytes;
    const red = frame.temporalId === 2 ? owed > 0 : owed >= frame.bytes;
    this.debt = red ? owed - frame.bytes : owed;
    return red ? 'red' : 'yellow';
  }
}
