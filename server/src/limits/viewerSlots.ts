import { RequestError } from '../errors';
import type { LimitRejections } from './rejections';

export interface ViewerCaps {
  maxViewers: number;
  maxViewersPerStream: number;
}

/**
 * Places for viewers, on the whole server and per stream. A place is taken
 * before a viewer session is made, not counted from the sessions made: making
 * one takes a while, and concurrent joins would overshoot.
 */
export class ViewerSlots {
  private total = 0;
  private readonly perStream = new Map<string, number>();

  constructor(
    private readonly caps: ViewerCaps,
    private readonly rejections: LimitRejections,
  ) {}

  /** Takes a place for one viewer of the stream, or throws `unavailable` naming the limit. Returns the release (safe to call twice). */
  take(streamId: string): () => void {
    const { maxViewers, maxViewersPerStream } = this.caps;
    const onStream = this.perStream.get(streamId) ?? 0;
    if (this.total >= maxViewers) throw this.refuse('viewers', `viewer limit reached: the server has its maximum of ${maxViewers} viewers, try again later`);
    if (onStream >= maxViewersPerStream) {
      throw this.refuse('viewers_per_stream', `viewer limit reached: stream "${streamId}" has its maximum of ${maxViewersPerStream} viewers, try again later`);
    }
    this.total++;
    this.perStream.set(streamId, onStream + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      const left = (this.perStream.get(streamId) ?? 1) - 1;
      if (left) this.perStream.set(streamId, left);
      else this.perStream.delete(streamId);
    };
  }

  private refuse(limit: 'viewers' | 'viewers_per_stream', message: string): RequestError {
    this.rejections.add(limit);
    return new RequestError('unavailable', message);
  }
}
