import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';
import { MediaWorker, type RtcListen } from './mediaWorker';

type MediaWorkerPoolEvents = { restarted: [index: number] };

/**
 * The mediasoup workers the viewers are spread over (MEDIA_WORKERS). A worker
 * is one thread: one core's worth of forwarding and SRTP, and one channel to
 * node, so with one worker a join waits behind every other viewer's packets.
 * Worker i listens on the media port + i. A new viewer goes to the worker with
 * the fewest viewers; each stream has a router on every worker.
 */
export class MediaWorkerPool extends EventEmitter<MediaWorkerPoolEvents> {
  private readonly viewers: number[];

  constructor(private readonly workers: readonly MediaWorker[]) {
    super();
    if (workers.length === 0) throw new Error('a media worker pool needs a worker');
    this.viewers = workers.map(() => 0);
    workers.forEach((w, i) => w.on('restarted', () => this.emit('restarted', i)));
  }

  /** `count` workers on ports rtc.port .. rtc.port + count - 1; all or none. */
  static async create(log: Logger, settings: ms.WorkerSettings, rtc: RtcListen, count: number): Promise<MediaWorkerPool> {
    const workers: MediaWorker[] = [];
    try {
      for (let i = 0; i < count; i++) workers.push(await MediaWorker.create(log.child({ worker: i }), settings, { ...rtc, port: rtc.port + i }));
    } catch (err) {
      for (const w of workers) w.close();
      throw err;
    }
    return new MediaWorkerPool(workers);
  }

  get size(): number {
    return this.workers.length;
  }

  /** The worker a new viewer should go to: the one with the fewest viewers (the first of equals). */
  leastLoaded(): number {
    return this.viewers.indexOf(Math.min(...this.viewers));
  }

  /** Counts a viewer on worker `index` until the returned release (idempotent) is called. */
  take(index: number): () => void {
    this.viewers[index]!++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.viewers[index]!--;
    };
  }

  /** Viewers on each worker now. */
  get viewerCounts(): readonly number[] {
    return this.viewers;
  }

  createRouter(index: number): Promise<ms.Router> {
    return this.worker(index).createRouter();
  }

  /** Worker `index`'s channel socket, for its producers' packets (PacketChannel); throws while it is not running. */
  channel(index: number): Writable {
    const socket = this.worker(index).channel;
    if (!socket) throw new Error('media worker is not running');
    return socket;
  }

  /** Worker `index`'s WebRtcServer (its one port), for its viewers' transports; throws while it is not running. */
  webRtcServer(index: number): ms.WebRtcServer {
    return this.worker(index).webRtcServer;
  }

  close(): void {
    for (const w of this.workers) w.close();
  }

  private worker(index: number): MediaWorker {
    const w = this.workers[index];
    if (!w) throw new Error(`no media worker ${index}`);
    return w;
  }
}
