import { AddressRateLimit } from './addressRateLimit';
import { LimitRejections } from './rejections';
import { SocketsPerAddress } from './socketsPerAddress';
import { ViewerSlots } from './viewerSlots';

/** What one server accepts at most; each has an environment variable (config.ts). */
export interface LimitSettings {
  maxViewers: number;
  maxViewersPerStream: number;
  /** Viewers joined from one client address: one address cannot take the server's places. */
  maxViewersPerAddress: number;
  /** Players' signaling WebSockets per client address. */
  maxSocketsPerAddress: number;
  /** Dashboards' WebSockets per client address, counted apart: viewers cannot crowd out the operator. */
  maxDashboardSocketsPerAddress: number;
  /** Streams the operator may run at once (each is an FFmpeg and an encoder per rendition). */
  maxStreams: number;
  /** Requests of one signaling socket received and not yet answered; past it the socket is closed (1008). */
  maxPendingRequests: number;
  /** A viewer whose transport has not reached DTLS `connected` this long after joining is closed. */
  dtlsTimeoutMs: number;
  /** Bytes queued for one player's socket: past half, quality and viewerState notifications are dropped; past all, the socket is closed. */
  maxSendBufferBytes: number;
  /** TURN credentials minted per client address and minute (as many at once); past it a transport gets the other ICE servers only. */
  turnCredentialsPerMinute: number;
  /** Wrong tokens per client address and minute (as many at once) on the operator API, /metrics and the dashboard; past it 429. */
  authFailuresPerMinute: number;
  /** Placement requests (`/api/place`) per client address and minute (as many at once); past it 429. */
  placeRequestsPerMinute: number;
}

/** maxViewersPerStream defaults to maxViewers. */
export const DEFAULT_LIMITS: Omit<LimitSettings, 'maxViewersPerStream'> = {
  maxViewers: 100,
  maxViewersPerAddress: 10,
  maxSocketsPerAddress: 16,
  maxDashboardSocketsPerAddress: 4,
  maxStreams: 16,
  maxPendingRequests: 32,
  dtlsTimeoutMs: 30_000,
  maxSendBufferBytes: 1 << 20,
  turnCredentialsPerMinute: 30,
  authFailuresPerMinute: 10,
  placeRequestsPerMinute: 60,
};

/** The server's limits and their refusal counts, shared by everything that enforces one. */
export class Limits {
  readonly rejections = new LimitRejections();
  readonly viewers: ViewerSlots;
  readonly sockets: SocketsPerAddress;
  readonly turnCredentials: AddressRateLimit;
  readonly authFailures: AddressRateLimit;
  readonly placeRequests: AddressRateLimit;

  constructor(readonly settings: LimitSettings) {
    this.viewers = new ViewerSlots(settings, this.rejections);
    this.sockets = new SocketsPerAddress({ signaling: settings.maxSocketsPerAddress, dashboard: settings.maxDashboardSocketsPerAddress }, this.rejections);
    this.turnCredentials = new AddressRateLimit({ burst: settings.turnCredentialsPerMinute, perMinute: settings.turnCredentialsPerMinute });
    this.authFailures = new AddressRateLimit({ burst: settings.authFailuresPerMinute, perMinute: settings.authFailuresPerMinute });
    this.placeRequests = new AddressRateLimit({ burst: settings.placeRequestsPerMinute, perMinute: settings.placeRequestsPerMinute });
  }
}
