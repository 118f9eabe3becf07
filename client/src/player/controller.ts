/**
 * Owns the current PlayerSession: starts it, replaces it when the user picks another
 * stream, and after a failure (server gone, stream error, media failure) starts a new
 * one with exponential backoff, unless the server ended the session for good (an
 * operator's disconnect): then it waits for the user to reconnect. Publishes an
 * immutable view for React and the test hook.
 */
import { backoffMs } from '@pels/shared/backoff';
import type { types } from 'mediasoup-client';
import type { Color } from '@pels/shared/pels/color';
import type { RenditionChoice, StreamInfo } from '@pels/shared/protocol/signaling';
import type { PlayerState } from '@pels/shared/protocol/playerHook';
import { QualityStore } from '../quality/qualityStore';
import { AudioOutput } from './audioOutput';
import { PlayerSession, type SessionEvents } from './session';
import { emptyStats, type PlayerStats } from './stats';
import { LostEdges, type Placer } from './placement';
import { normalizeColors, withPlayerParams } from './urlParams';
import type { FlowModeName, MediaTransport, UptaStatus } from '@pels/shared/protocol/api';

/**
 * `error`: the session failed, a new one starts after a backoff; `disconnected`: the server ended it, waiting for
 * reconnect(); `unsupported`: this browser or page cannot play (the error says why), so no session is tried;
 * `paused`: the viewer paused: the stream is left, its last frame stays on screen, play() joins again.
 */
export type { PlayerState };

export interface PlayerView {
  state: PlayerState;
  /** Why the last session failed or was ended; kept until playing again. */
  error: string | undefined;
  /** When the next attempt starts, while waiting after a failure (ms since the epoch). */
  retryAt: number | undefined;
  /** A problem that does not end the session, e.g. a layer change the server refused. */
  warning: string | undefined;
  viewerId: string | undefined;
  streams: StreamInfo[];
  /** The stream asked for, or the one joined. */
  streamId: string | undefined;
  colors: Color[];
  /** The quality menu's choice: a rendition held whatever the rate (0: full size), or 'auto'; kept across sessions. */
  rendition: RenditionChoice;
  transportState: types.ConnectionState | undefined;
  /** How the media reaches this player, as the server last said (null: not chosen yet); over tcp or relay it is served best effort. */
  mediaTransport: MediaTransport | null;
  /** What the server's useless-packet avoidance lets out to this player (null: off); while paused the player says why. */
  upta: UptaStatus | null;
  stats: PlayerStats;
  canvas: HTMLCanvasElement | undefined;
  /** The current session's quality record (samples, coverage, charts, export); a new one per session. */
  quality: QualityStore;
  /** The cluster's edge the current session was placed on; undefined on a single server or before placement. */
  node: string | undefined;
  /** Where the last session's join spent its time (ms per phase), once it played its first frame. */
  joinPhasesMs: Record<string, number> | undefined;
}

export interface ControllerConfig {
  /** Where a session's signaling goes (placement.ts): the stream asked for, the edges to avoid. */
  place: Placer;
  streamId: string | undefined;
  colors: Color[];
  playoutDeadlineMs: number;
  mode: FlowModeName;
  /** The rate controller asked for (`?cc=`); the stream's when undefined. */
  controller: string | undefined;
  /** Keep the stream and colors in the page URL; off when several players share the page. */
  syncUrl: boolean;
  /** Why this browser or page cannot play (browserSupport); the player then says so and never connects. */
  unsupported?: string;
}


export class PlayerController {
  /** The player's sound: mute, volume and the autoplay block, for the page's controls (it outlives sessions). */
  readonly audio = new AudioOutput();
  private view: PlayerView;
  private readonly listeners = new Set<() => void>();
  private session: PlayerSession | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Consecutive failures since the last time a session played. */
  private failures = 0;
  private running = false;
  /** Edges whose socket was lost or that said to move: not asked for again for a while. */
  private readonly lostEdges = new LostEdges();

  constructor(private readonly config: ControllerConfig) {
    this.view = {
      state: 'idle',
      error: undefined,
      retryAt: undefined,
      warning: undefined,
      viewerId: undefined,
      streams: [],
      streamId: config.streamId,
      colors: config.colors,
      rendition: 'auto',
      transportState: undefined,
      mediaTransport: null,
      upta: null,
      stats: emptyStats(),
      canvas: undefined,
      quality: new QualityStore(),
      node: undefined,
      joinPhasesMs: undefined,
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): PlayerView => this.view;

  start(): void {
    if (this.config.unsupported !== undefined) return this.update({ state: 'unsupported', error: this.config.unsupported });
    if (this.running) return;
    this.running = true;
    this.failures = 0;
    this.openSession();
  }

  /** Leaves the stream and stops retrying (page hidden or unloaded). */
  stop(): void {
    this.running = false;
    clearTimeout(this.retryTimer);
    this.session?.close();
    this.session = undefined;
    void this.audio.attach(null);
    this.update({ state: 'idle', retryAt: undefined, viewerId: undefined, transportState: undefined });
  }

  /**
   * Leaves the stream and keeps its last frame on screen. A live stream has no past to go back to:
   * play() joins again at the live edge (a new session).
   */
  pause(): void {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.retryTimer);
    this.session?.close();
    this.session = undefined;
    void this.audio.attach(null);
    this.update({ state: 'paused', error: undefined, retryAt: undefined, viewerId: undefined, transportState: undefined });
  }

  play(): void {
    if (this.view.state === 'paused') this.start();
  }

  /** Starts a new session after the server ended the last one for good (the user's choice, never automatic). */
  reconnect(): void {
    if (!this.running || this.view.state !== 'disconnected') return;
    this.failures = 0;
    this.openSession();
  }

  selectStream(streamId: string): void {
    this.config.streamId = streamId;
    this.update({ streamId });
    this.syncUrl();
    if (!this.running) return;
    this.session?.close();
    this.failures = 0;
    this.openSession();
  }

  /** Green is always included. Resolves once the server has applied the colors (at once when not joined yet). */
  async setColors(colors: readonly string[]): Promise<void> {
    const normalized = normalizeColors(colors);
    this.config.colors = normalized;
    this.update({ colors: normalized, warning: undefined });
    this.syncUrl();
    try {
      await this.session?.setColors(normalized);
    } catch (err) {
      this.update({ warning: `The server did not change the layers: ${err instanceof Error ? err.message : String(err)}` });
      throw err;
    }
  }

  /** The quality menu: pins a rendition or gives the choice back to the server ('auto'); later sessions keep it. */
  async setRendition(rendition: RenditionChoice): Promise<void> {
    this.update({ rendition, warning: undefined });
    try {
      await this.session?.setRendition(rendition);
    } catch (err) {
      this.update({ warning: `The server did not change the quality: ${err instanceof Error ? err.message : String(err)}` });
      throw err;
    }
  }

  private openSession(): void {
    clearTimeout(this.retryTimer);
    const session: PlayerSession = new PlayerSession(
      {
        signalingUrl: async () => {
          const placed = await this.config.place(this.config.streamId, this.lostEdges.list(Date.now()));
          if (this.session === session) this.update({ node: placed.node });
          return placed.signalingUrl;
        },
        streamId: this.config.streamId,
        colors: this.config.colors,
        rendition: this.view.rendition,
        playoutDeadlineMs: this.config.playoutDeadlineMs,
        mode: this.config.mode,
        controller: this.config.controller,
      },
      this.sessionEvents(() => this.session === session),
    );
    this.session = session;
    this.view.quality.close();
    this.update({
      quality: new QualityStore(),
      state: 'connecting',
      retryAt: undefined,
      viewerId: undefined,
      transportState: undefined,
      mediaTransport: null,
      upta: null,
      stats: emptyStats(),
      canvas: session.canvas,
    });
    void session.start();
  }

  /** Events of a replaced session are ignored. */
  private sessionEvents(isCurrent: () => boolean): SessionEvents {
    const guard =
      <A extends unknown[]>(fn: (...args: A) => void) =>
      (...args: A) => {
        if (isCurrent()) fn(...args);
      };
    return {
      streams: guard((streams) => this.update({ streams, streamId: this.config.streamId ?? streams[0]?.id })),
      joined: guard((viewerId, stream) => {
        this.audio.setHasSound(stream.audio !== null);
        this.update({ viewerId, streamId: stream.id, streams: this.withStream(stream) });
      }),
      streamState: guard((stream) => {
        this.audio.setHasSound(stream.audio !== null);
        this.update({ streams: this.withStream(stream) });
      }),
      audioTrack: guard((track) => {
        this.audio.attach(track).catch((err: unknown) => this.update({ warning: `The sound cannot play: ${err instanceof Error ? err.message : String(err)}` }));
      }),
      transportState: guard((transportState) => this.update({ transportState })),
      stats: guard((stats) => {
        this.view.quality.onStats(stats);
        this.update({ stats });
      }),
      quality: guard((update) => this.view.quality.onQuality(update)),
      viewerState: guard((state) => {
        this.view.quality.onViewerState(state);
        if (state.transport !== this.view.mediaTransport) this.update({ mediaTransport: state.transport });
        if (state.upta?.state !== this.view.upta?.state || state.upta?.probing !== this.view.upta?.probing) this.update({ upta: state.upta });
      }),
      receivedBytes: guard((bytes) => this.view.quality.onReceivedBytes(bytes)),
      colors: guard((colors) => this.update({ colors })),
      joinPhases: guard((joinPhasesMs) => this.update({ joinPhasesMs })),
      playing: guard((stats) => {
        this.failures = 0;
        this.update({ state: 'playing', error: undefined, stats });
      }),
      warning: guard((warning) => this.update({ warning })),
      failed: guard((message, rejoin, serverLost) => this.onSessionFailed(message, rejoin, serverLost)),
    };
  }

  private onSessionFailed(message: string, rejoin: boolean, serverLost: boolean): void {
    this.session = undefined;
    if (!rejoin) {
      this.update({ state: 'disconnected', error: message, retryAt: undefined, transportState: undefined });
      return;
    }
    // A lost edge: placed elsewhere at once (the first time since playing), without it.
    const node = this.view.node;
    if (serverLost && node !== undefined) this.lostEdges.add(node, Date.now());
    this.failures++;
    if (serverLost && node !== undefined && this.failures === 1) {
      this.update({ error: `${message}; moving to another server`, node: undefined });
      this.openSession();
      return;
    }
    const delay = backoffMs(this.failures);
    this.update({ state: 'error', error: message, retryAt: Date.now() + delay, transportState: undefined });
    this.retryTimer = setTimeout(() => {
      if (this.running) this.openSession();
    }, delay);
  }

  private withStream(stream: StreamInfo): StreamInfo[] {
    const known = this.view.streams.some((s) => s.id === stream.id);
    return known ? this.view.streams.map((s) => (s.id === stream.id ? stream : s)) : [...this.view.streams, stream];
  }

  /** Keeps the URL shareable: reloading plays the same stream with the same colors. */
  private syncUrl(): void {
    if (!this.config.syncUrl) return;
    const search = withPlayerParams(location.search, this.config.streamId, this.config.colors);
    history.replaceState(history.state, '', `${location.pathname}${search}${location.hash}`);
  }

  private update(patch: Partial<PlayerView>): void {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l();
  }
}
