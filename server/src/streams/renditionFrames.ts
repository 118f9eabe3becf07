import { FrameLayering, type LayeredFrame } from '../layering/layeredFrame';

/** One source frame in every rendition, by rendition (0: the stream's own encoding). */
export interface FrameSet {
  /** The IVF pts the frames had in their ingest run (the same in every rendition). */
  pts: number;
  frames: LayeredFrame[];
}

/**
 * Sets waiting for a rendition's frame at most; older ones are dropped (an encoder ended mid-run).
 * One encoder may be far ahead of another: after a stall FFmpeg writes its backlog to each
 * output in turn (measured under load: 40 to 74 frames at a WHIP run's start). 10 s of frames,
 * as long as the ingest waits for a silent run (stallTimeoutMs); encoded frames, a few MB at most.
 */
const MAX_PENDING = 300;

/**
 * Gathers the renditions' frames of each source frame into one set. Every
 * rendition's encoder gets the same frames from the one decode and counts them
 * in its pts, so frame pts of a run is stream index (run start + pts) in all of
 * them: a viewer can take any rendition's frame for an index and continue from
 * there in another. A set goes out once every rendition's frame has come, so a
 * viewer switching at a keyframe never has sent the same index twice.
 */
export class RenditionFrames {
  private readonly layerings: FrameLayering[];
  private readonly pending = new Map<number, { pts: number; frames: (LayeredFrame | undefined)[]; missing: number }>();
  private runStart = 0;
  private nextIndex = 0;

  constructor(
    private readonly count: number,
    ticksPerFrame: number,
  ) {
    this.layerings = Array.from({ length: count }, () => new FrameLayering(ticksPerFrame));
  }

  /** The stream index of the current run's pts 0. */
  get runStartIndex(): number {
    return this.runStart;
  }

  /** A new ingest run: its pts count from 0 again, its indexes go on after the last. */
  newRun(): void {
    this.runStart = this.nextIndex;
    this.pending.clear();
  }

  /** A rendition's frame; returns the sets it completes. Throws when the frame's VP8 header cannot be read. */
  push(rendition: number, data: Uint8Array, pts: number): FrameSet[] {
    const index = this.runStart + pts;
    const frame = this.layerings[rendition]!.next(data, index);
    this.nextIndex = Math.max(this.nextIndex, index + 1);
    if (this.count === 1) return [{ pts, frames: [frame] }];
    let set = this.pending.get(index);
    if (!set) {
      set = { pts, frames: new Array<LayeredFrame | undefined>(this.count).fill(undefined), missing: this.count };
      this.pending.set(index, set);
      for (const k of this.pending.keys()) {
        if (this.pending.size <= MAX_PENDING) break;
        this.pending.delete(k);
      }
    }
    if (set.frames[rendition] === undefined) set.missing--;
    set.frames[rendition] = frame;
    if (set.missing > 0) return [];
    this.pending.delete(index);
    // Encoders write in pts order: a set left behind by this one lost a frame, and is dropped.
    for (const k of this.pending.keys()) if (k < index) this.pending.delete(k);
    return [{ pts, frames: set.frames as LayeredFrame[] }];
  }
}
