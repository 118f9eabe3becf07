import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';
import { useFastChannelEncoding } from './channelEncoding';
import { createWorkerWithChannel } from './channelSocket';

export const AUDIO_CLOCK_RATE = 48000;
/** Every stream's sound (streamAudio.ts): Opus, stereo, at its one clock rate. */
export const OPUS_CODEC = { kind: 'audio', mimeType: 'audio/opus', clockRate: AUDIO_CLOCK_RATE, channels: 2 } as const;

export const MEDIA_CODECS: ms.RouterRtpCodecCapability[] = [{ kind: 'video', mimeType: 'video/VP8', clockRate: 90000 }, { ...OPUS_CODEC }];

type MediaWorkerEvents = { restarted: [] };

/** Where viewers reach the media: one address and one port, UDP and TCP. */
export interface RtcListen {
  listenIp: string;
  /** The address put in ICE candidates, when browsers reach the server at another one (NAT, a container). */
  announcedAddress: string | undefined;
  port: number;
}

/**
 * Owns the mediasoup worker process and its WebRtcServer: every viewer's
 * transport shares the server's one UDP and one TCP port (ICE tells the
 * viewers apart), so a firewall opens two ports whatever the number of
 * viewers, and a viewer whose network blocks UDP connects over ICE-TCP. When
 * the worker dies, a new one is started (with backoff) and `restarted` tells
 * the streams to make new routers.
 */
export class MediaWorker extends EventEmitter<MediaWorkerEvents> {
  private worker: ms.Worker | null = null;
  /** The running worker's channel socket (see channelSocket.ts). */
  private socket: Writable | null = null;
  private server: ms.WebRtcServer | null = null;
  private closed = false;
  private restartDelayMs = 500;

  private constructor(
    private readonly log: Logger,
    private readonly settings: ms.WorkerSettings,
    private readonly rtc: RtcListen,
  ) {
    super();
  }

  static async create(log: Logger, settings: ms.WorkerSettings, rtc: RtcListen): Promise<MediaWorker> {
    useFastChannelEncoding();
    const mw = new MediaWorker(log, settings, rtc);
    await mw.spawn();
    return mw;
  }

  /** The current worker's WebRtcServer, for the viewers' transports. */
  get webRtcServer(): ms.WebRtcServer {
    if (!this.server || this.server.closed) throw new Error('media worker is not running');
    return this.server;
  }

  /** The running worker's channel socket (what mediasoup writes its messages to), null while none runs. */
  get channel(): Writable | null {
    return this.worker && !this.worker.closed ? this.socket : null;
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
    const { worker, channel } = await createWorkerWithChannel(this.settings);
    const { listenIp, announcedAddress, port } = this.rtc;
    const listen = { ip: listenIp, port, ...(announcedAddress ? { announcedAddress } : {}) };
    try {
      this.server = await worker.createWebRtcServer({ listenInfos: [{ protocol: 'udp', ...listen }, { protocol: 'tcp', ...listen }] });
    } catch (err) {
      worker.close();
      throw new Error(`cannot listen for media on ${listenIp} port ${port} (UDP and TCP; RTC_LISTEN_IP, RTC_PORT): ${(err as Error).message}`);
    }
    this.worker = worker;
    this.socket = channel;
    this.log.info({ pid: worker.pid, listenIp, port, announcedAddress }, 'mediasoup worker started');
    worker.on('died', (err) => {
      this.log.error({ err, pid: worker.pid }, 'mediasoup worker died; restarting it');
      this.worker = null;
      this.socket = null;
      this.server = null;
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
