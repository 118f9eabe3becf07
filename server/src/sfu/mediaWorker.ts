import { EventEmitter } from 'node:events';
import * as mediasoup from 'mediasoup';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';

export const MEDIA_CODECS: ms.RouterRtpCodecCapability[] = [{ kind: 'video', mimeType: 'video/VP8', clockRate: 90000 }];

type MediaWorkerEvents = { restarted: [] };

/**
 * Owns the mediasoup worker process. When it dies, a new one is started
 * (with backoff) and `restarted` tells the streams to make new routers.
 */
export class MediaWorker extends EventEmitter<MediaWorkerEvents> {
  private worker: ms.Worker | null = null;
  private closed = false;
  private restartDelayMs = 500;

  private constructor(
    private readonly log: Logger,
    private readonly settings: ms.WorkerSettings,
  ) {
    super();
  }

  static async create(log: Logger, settings: ms.WorkerSettings): Promise<MediaWorker> {
    const mw = new MediaWorker(log, settings);
    await mw.spawn();
    return mw;
  }

  get pid(): number | undefined {
    return this.worker?.pid;
  }

  async createRouter(): Promise<ms.Router> {
    if (!this.worker || this.worker.closed) throw new Error('media worker is not running');
    return this.worker.createRouter({ mediaCodecs: MEDIA_CODECS });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.worker?.close();
  }

  private async spawn(): Promise<void> {
    const worker = await mediasoup.createWorker(this.settings);
    this.worker = worker;
    this.log.info({ pid: worker.pid }, 'mediasoup worker started');
    worker.on('died', (err) => {
      this.log.error({ err, pid: worker.pid }, 'mediasoup worker died; restarting it');
      this.worker = null;
      if (!this.closed) setTimeout(() => void this.respawn(), this.restartDelayMs);
    });
  }

  private async respawn(): Promise<void> {
    if (this.closed) return;
    try {
      await this.spawn();
      this.restartDelayMs = 500;
      this.emit('restarted');
    } catch (err) {
      this.restartDelayMs = Math.min(this.restartDelayMs * 2, 30_000);
      this.log.error({ err }, 'cannot start mediasoup worker; retrying');
      setTimeout(() => void this.respawn(), this.restartDelayMs);
    }
  }
}
