import * as mediasoup from 'mediasoup';
import type { types as ms } from 'mediasoup';

export interface WorkerUsage {
  /** Live workers. */
  workers: number;
  /** Workers started since this process began (more than one: the worker died and was replaced). */
  started: number;
  /** CPU time of the live workers, seconds. */
  userSeconds: number;
  systemSeconds: number;
  /** Peak resident memory of the live workers summed, bytes. */
  maxRssBytes: number;
  /** Live routers, and viewers' transports, of all workers: after every viewer has left, one router per stream and worker, and no transport. */
  routers: number;
  transports: number;
  /** Live consumers of all transports: none after every viewer has left. */
  consumers: number;
}

/**
 * appData of the transports the server makes for a stream or for itself (a stream's sound producer, a shared
 * fan-out, a worker's self-test), so that the transport count is the viewers' alone.
 */
export const SERVER_TRANSPORT = { owner: 'server' } as const;

/**
 * Watches mediasoup's own observer for workers, so metrics need no hook in
 * the media code. Create it before the first worker.
 */
export class MediasoupWorkers {
  private readonly workers = new Set<ms.Worker>();
  private started = 0;
  private routers = 0;
  private transports = 0;
  private consumers = 0;
  private readonly onNewWorker = (worker: ms.Worker): void => {
    this.started++;
    this.workers.add(worker);
    worker.observer.once('close', () => this.workers.delete(worker));
    worker.observer.on('newrouter', (router) => {
      this.routers++;
      router.observer.once('close', () => this.routers--);
      router.observer.on('newtransport', (transport) => {
        if (transport.appData.owner === SERVER_TRANSPORT.owner) return;
        this.transports++;
        transport.observer.once('close', () => this.transports--);
        transport.observer.on('newconsumer', (consumer) => {
          this.consumers++;
          consumer.observer.once('close', () => this.consumers--);
        });
      });
    });
  };

  constructor() {
    mediasoup.observer.on('newworker', this.onNewWorker);
  }

  async usage(): Promise<WorkerUsage> {
    const usages = await Promise.all([...this.workers].map((w) => w.getResourceUsage().catch(() => null)));
    const out: WorkerUsage = {
      workers: this.workers.size,
      started: this.started,
      userSeconds: 0,
      systemSeconds: 0,
      maxRssBytes: 0,
      routers: this.routers,
      transports: this.transports,
      consumers: this.consumers,
    };
    for (const u of usages) {
      if (!u) continue; // the worker closed while asked
      out.userSeconds += u.ru_utime / 1000;
      out.systemSeconds += u.ru_stime / 1000;
      out.maxRssBytes += u.ru_maxrss * 1024; // getrusage reports kilobytes on Linux
    }
    return out;
  }

  close(): void {
    mediasoup.observer.off('newworker', this.onNewWorker);
  }
}
