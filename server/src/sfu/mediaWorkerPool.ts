import { EventEmitter } from 'node:events';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';
import { MediaWorker, noDrops, type PacketPath, type RtcListen } from './mediaWorker';
import type { PacketSinks } from './packetSink';
import type { WorkerRequests } from './workerRequests';

type MediaWorkerPoolEvents = { restarted: [index: number] };

/**
 * Of the workers `usable` accepts, the one with the fewest viewers (the first of equals); of all, when none is.
 * A worker that just died has none (its viewers were closed): fewest alone would send every rejoin to it while it restarts.
 */
export function leastLoadedOf(viewers: readonly number[], usable: (index: number) => boolean): number {
  const candidates = viewers.map((_, i) => i).filter(usable);
  const from = candidates.length > 0 ? candidates : viewers.map((_, i) => i);
  return from.reduce((best, i) => (viewers[i]! < viewers[best]! ? i : best), from[0]!);
}

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
  static async create(log: Logger, settings: ms.WorkerSettings, rtc: RtcListen, count: number, path: PacketPath = { setting: 'auto', drops: noDrops() }): Promise<MediaWorkerPool> {
    const workers: MediaWorker[] = [];
    try {
      for (let i = 0; i < count; i++) workers.push(await MediaWorker.create(log.child({ worker: i }), settings, { ...rtc, port: rtc.port + i }, path));
    } catch (err) {
      for (const w of workers) w.close();
      throw err;
    }
    return new MediaWorkerPool(workers);
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * The worker a new viewer should go to: of those `usable` says can take it (a stream's router there is up), the one
   * with the fewest viewers; any worker when none is usable.
   */
  leastLoaded(usable: (index: number) => boolean = () => true): number {
    return leastLoadedOf(this.viewers, usable);
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

  createRouter(index: number, mediaCodecs?: ms.RouterRtpCodecCapability[]): Promise<ms.Router> {
    return this.worker(index).createRouter(mediaCodecs);
  }

  /** Where worker `index`'s producers get the flows' packets; throws while it is not running. */
  packetSinks(index: number): PacketSinks {
    return this.worker(index).packetSinks;
  }

  /** Worker `index`'s requests, timed. */
  requests(index: number): WorkerRequests {
    return this.worker(index).requests;
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
