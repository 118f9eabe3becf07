import { EventEmitter } from 'node:events';
import type { IngestEvents, IngestState, IngestStatus } from '../ingest/ffmpegIngest';
import type { Publisher } from '../live/publisher';
import type { StreamIngest } from '../streams/streamIngest';
import type { PipedFrame } from './frameAssembler';

/**
 * An edge's stream's ingest: the frames come from the origin's pipe (EdgeLink puts them back together),
 * the state is the origin's stream's (or `failed` while the origin cannot be reached), and a keyframe
 * request goes upstream, after the stream's own throttle, as a PLI on the pipe.
 */
export class PipedIngest extends EventEmitter<IngestEvents> implements StreamIngest {
  private status: IngestStatus = { state: 'starting', restarts: 0 };
  /** Set while the pipe is up: asks the origin for a keyframe of the rendition. */
  private keyframe: ((rendition: number) => void) | null = null;

  get currentStatus(): IngestStatus {
    return this.status;
  }

  get currentPublisher(): Publisher | null {
    return null;
  }

  /** The pipe is what starts the frames. */
  start(): void {}

  close(): void {
    this.keyframe = null;
    this.setState('stopped');
  }

  requestKeyframe(rendition: number): void {
    this.keyframe?.(rendition);
  }

  attachPublisher(p: Publisher): void {
    p.close('this server is an edge: publish to its origin');
  }

  detachPublisher(): void {}

  /** The pipe is up (`keyframe` asks for one upstream), or down (null). */
  setPipe(keyframe: ((rendition: number) => void) | null): void {
    this.keyframe = keyframe;
  }

  setState(state: IngestState, error?: string): void {
    if (this.status.state === 'stopped') return;
    if (state === this.status.state && error === this.status.error) return;
    this.status = { state, restarts: this.status.restarts, ...(error !== undefined ? { error } : {}) };
    this.emit('status', this.status);
  }

  frame(rendition: number, f: PipedFrame): void {
    this.emit('frame', { pts: BigInt(f.index), data: f.data }, rendition, Date.now());
  }
}
