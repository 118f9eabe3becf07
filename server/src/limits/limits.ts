import { LimitRejections } from './rejections';
import { SocketsPerAddress } from './socketsPerAddress';
import { ViewerSlots } from './viewerSlots';

/** What one server accepts at most; each has an environment variable (config.ts). */
export interface LimitSettings {
  maxViewers: number;
  maxViewersPerStream: number;
  /** Signaling and dashboard WebSockets per client address. */
  maxSocketsPerAddress: number;
  /** Requests of one signaling socket received and not yet answered; past it the socket is closed (1008). */
  maxPendingRequests: number;
  /** A viewer whose transport has not reached DTLS `connected` this long after joining is closed. */
  dtlsTimeoutMs: number;
  /** Bytes queued for one player's socket: past half, quality and viewerState notifications are dropped; past all, the socket is closed. */
  maxSendBufferBytes: number;
}

/** maxViewersPerStream defaults to maxViewers. */
export const DEFAULT_LIMITS: Omit<LimitSettings, 'maxViewersPerStream'> = {
  maxViewers: 100,
  maxSocketsPerAddress: 64,
  maxPendingRequests: 32,
  dtlsTimeoutMs: 30_000,
  maxSendBufferBytes: 1 << 20,
};

/** The server's limits and their refusal counts, shared by everything that enforces one. */
export class Limits {
  readonly rejections = new LimitRejections();
  readonly viewers: ViewerSlots;
  readonly sockets: SocketsPerAddress;

  constructor(readonly settings: LimitSettings) {
    this.viewers = new ViewerSlots(settings, this.rejections);
    this.sockets = new SocketsPerAddress(settings.maxSocketsPerAddress, this.rejections);
  }
}
