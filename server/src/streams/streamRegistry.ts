import { EventEmitter } from 'node:events';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { StreamInfo } from '@pels/shared/protocol/signaling';
import { RequestError } from '../errors';
import type { ViewerSession } from '../viewer/viewerSession';
import type { Stream } from './stream';

/** The streams the server serves, by id. */
export class StreamRegistry {
  private readonly streams = new Map<string, Stream>();
  /** For monitoring (metrics): each stream added. */
  readonly observer = new EventEmitter<{ newstream: [Stream] }>();

  add(stream: Stream): void {
    if (this.streams.has(stream.id)) throw new RequestError('bad_request', `stream ${stream.id} already exists`);
    this.streams.set(stream.id, stream);
    this.observer.emit('newstream', stream);
  }

  has(id: string): boolean {
    return this.streams.has(id);
  }

  /** Closes the stream (and so its viewers) and forgets it. */
  remove(id: string): void {
    const stream = this.get(id);
    this.streams.delete(id);
    stream.close();
  }

  get(id: string): Stream {
    const s = this.streams.get(id);
    if (!s) throw new RequestError('not_found', `no stream with id "${id}"`);
    return s;
  }

  /** Every stream as anyone may see it (no source address, no FFmpeg error). */
  publicList(): StreamInfo[] {
    return [...this.streams.values()].map((s) => s.publicInfo());
  }

  viewers(): ViewerState[] {
    return [...this.streams.values()].flatMap((s) => s.viewerStates());
  }

  forEachViewer(fn: (v: ViewerSession) => void): void {
    for (const s of this.streams.values()) s.forEachViewer(fn);
  }

  all(): Stream[] {
    return [...this.streams.values()];
  }

  closeAll(): void {
    for (const s of this.streams.values()) s.close();
    this.streams.clear();
  }
}
