import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../log';
import { COLORS } from '@pels/shared/pels/color';
import { useFastChannelEncoding } from './channelEncoding';
import { createWorkerWithChannel } from './channelSocket';
import type { ChannelDrops } from './packetChannel';
import type { PacketSinks } from './packetSink';
import { choosePacketSinks, type PacketSinkSetting } from './packetSinkChoice';
import { WorkerRequests } from './workerRequests';

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

/** How the viewers' packets reach the worker (PACKET_SINK), and where the channel writer counts what it drops. */
export interface PacketPath {
  setting: PacketSinkSetting;
  drops: ChannelDrops;
}

/** A fresh count of dropped packets. */
export function noDrops(): ChannelDrops {
  return Object.fromEntries(COLORS.map((c) => [c, 0])) as ChannelDrops;
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
  private sinks: PacketSinks | null = null;
  /** The requests made of the worker, timed (slow ones are logged with the channel's backlog). */
  readonly requests: WorkerRequests;
  private closed = false;
  private restartDelayMs = 500;

  private constructor(
    private readonly log: Logger,
    private readonly settings: ms.WorkerSettings,
    private readonly rtc: RtcListen,
    private readonly path: PacketPath,
  ) {
    super();
    this.requests = new WorkerRequests(log, () => this.channel?.writableLength ?? null);
  }

  static async create(log: Logger, settings: ms.WorkerSettings, rtc: RtcListen, path: PacketPath = { setting: 'auto', drops: noDrops() }): Promise<MediaWorker> {
    useFastChannelEncoding();
    const mw = new MediaWorker(log, settings, rtc, path);
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

  /** Where the running worker's producers get their packets; throws while it is not running. */
  get packetSinks(): PacketSinks {
    if (!this.sinks || !this.worker || this.worker.closed) throw new Error('media worker is not running');
    return this.sinks;
  }

  get pid(): number | undefined {
    return this.worker?.pid;
  }

  /** A router with the viewers' codecs, or others (a WHIP publisher's). */
  async createRouter(mediaCodecs: ms.RouterRtpCodecCapability[] = MEDIA_CODECS): Promise<ms.Router> {
    if (!this.worker || this.worker.closed) throw new Error('media worker is not running');
    return this.worker.createRouter({ mediaCodecs });
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
    let sinks: PacketSinks;
    try {
      const router = await worker.createRouter({ mediaCodecs: MEDIA_CODECS });
      try {
        sinks = await choosePacketSinks({ setting: this.path.setting, router, socket: channel, drops: this.path.drops, log: this.log });
      } finally {
        router.close();
      }
    } catch (err) {
      worker.close();
      throw err;
    }
    forgetSignalListeners(worker);
    this.worker = worker;
    this.socket = channel;
    this.sinks = sinks;
    this.log.info({ pid: worker.pid, listenIp, port, announcedAddress, packetSink: sinks.kind }, 'mediasoup worker started');
    worker.on('died', (err) => {
      this.log.error({ err, pid: worker.pid }, 'mediasoup worker died; restarting it');
      this.worker = null;
      this.socket = null;
      this.server = null;
      this.sinks = null;
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

/**
 * mediasoup (3.27) has each worker listen for SIGINT and SIGTERM and close at once. The server closes its workers
 * itself when it stops (main.ts), after an edge has moved its viewers away (a drain that needs the workers), so the
 * listeners go as each worker starts. mediasoup would also keep them when a worker dies: every dead worker would stay
 * reachable from `process`, with its channel and that channel's string cache (about 0.4 MB each, seen in heap
 * snapshots of a soak), and the listeners would pile up toward Node's MaxListeners warning.
 */
function forgetSignalListeners(worker: ms.Worker): void {
  const onSignal = (worker as unknown as { onSignal?: unknown }).onSignal;
  if (typeof onSignal !== 'function') return;
  process.removeListener('SIGINT', onSignal as () => void);
  process.removeListener('SIGTERM', onSignal as () => void);
}
