import { RequestError } from '../errors';
import type { LimitRejections } from './rejections';
import { addressKey } from './socketsPerAddress';

export interface ViewerCaps {
  maxViewers: number;
  maxViewersPerStream: number;
  maxViewersPerAddress: number;
}

/**
 * Places for viewers, on the whole server and per stream. A place is taken
 * before a viewer session is made, not counted from the sessions made: making
 * one takes a while, and concurrent joins would overshoot.
 */
export class ViewerSlots {
  private total = 0;
  private readonly perStream = new Map<string, number>();
  private readonly perAddress = new Map<string, number>();

  constructor(
    private readonly caps: ViewerCaps,
    private readonly rejections: LimitRejections,
  ) {}

  /**
   * Takes a place for one viewer of the stream joining from `address` (unknown: not counted per address), or
   * throws `unavailable` naming the limit. Returns the release (safe to call twice).
   */
  take(streamId: string, address?: string): () => void {
    const { maxViewers, maxViewersPerStream, maxViewersPerAddress } = this.caps;
    const onStream = this.perStream.get(streamId) ?? 0;
    const key = address === undefined ? undefined : addressKey(address);
    const fromAddress = key === undefined ? 0 : (this.perAddress.get(key) ?? 0);
    if (fromAddress >= maxViewersPerAddress) {
      throw this.refuse('viewers_per_address', `viewer limit reached: at most ${maxViewersPerAddress} viewers from one address, try again later`);
    }
    if (this.total >= maxViewers) throw this.refuse('viewers', `viewer limit reached: the server has its maximum of ${maxViewers} viewers, try again later`);
    if (onStream >= maxViewersPerStream) {
      throw this.refuse('viewers_per_stream', `viewer limit reached: stream "${streamId}" has its maximum of ${maxViewersPerStream} viewers, try again later`);
    }
    this.total++;
    this.perStream.set(streamId, onStream + 1);
    if (key !== undefined) this.perAddress.set(key, fromAddress + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      decrement(this.perStream, streamId);
      if (key !== undefined) decrement(this.perAddress, key);
    };
  }

  private refuse(limit: 'viewers' | 'viewers_per_stream' | 'viewers_per_address', message: string): RequestError {
    this.rejections.add(limit);
    return new RequestError('unavailable', message);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left) counts.set(key, left);
  else counts.delete(key);
}
