/**
 * `window.pels`: the contract the player offers the end-to-end tests, the
 * testbed and the benchmarks, which drive and read it through Playwright. The
 * player implements it (client/src/testHook.ts); its stats are counted in the
 * player's worker. Types only.
 */
import type { Color } from '../pels/color';
import type { MediaTransport } from './api';
import type { StreamState } from './signaling';

/** 'playing' from the first decoded frame of the current session. */
export type PlayerState = 'idle' | 'connecting' | 'playing' | 'paused' | 'error' | 'disconnected' | 'unsupported';

export interface LayerCounts {
  total: number;
  tid0: number;
  tid1: number;
  tid2: number;
}

export interface PsnrSummary {
  mean: number | null;
  /** 5th percentile, to 0.1 dB. */
  p5: number | null;
  last: number | null;
}

/** The display's quality, from the worker's QualityTracker and QualityTables. */
export interface QualityStats {
  /** Times a frame stayed on screen more than 200 ms. */
  freezes: number;
  /** Decoded frames whose Y-plane CRC32 differed from the server's decode (expected 0). */
  checksumMismatches: number;
  checksumsCompared: number;
  /** Y-PSNR of the displayed frames over the session, dB. */
  psnr: PsnrSummary;
}

/** The sound as received (WebRTC stats of the audio receiver), counted since the session began. */
export interface AudioReceiveStats {
  packetsReceived: number;
  packetsLost: number;
  /** Samples the receiver made up for lost or late packets, and all samples it played out. */
  concealedSamples: number;
  totalSamplesReceived: number;
  /** Of the concealed samples, those made up as silence (no sound to extend: nothing had come yet, or for long). */
  silentConcealedSamples: number;
  /** Packets the receiver recovered from the next packet's in-band FEC. */
  fecPacketsReceived: number;
  /** Stretches of concealment (one lost packet or one stall each), and the NACKs the receiver sent. */
  concealmentEvents: number;
  nackCount: number;
  /** Samples the receiver added to slow its playout (its buffer running low) and took out to speed it up (running high). */
  insertedSamplesForDeceleration: number;
  removedSamplesForAcceleration: number;
  /** The jitter buffer's delay summed over the samples it emitted (s), and their count. */
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
  /** When the stats were taken (the report's timestamp, ms). */
  atMs: number;
}

export interface PlayerStats extends QualityStats {
  framesDecoded: LayerCounts;
  /** Frames decoded per second over the last 2 s. */
  fps: LayerCounts;
  /** Frames received complete on each color (before the merger decides their fate). */
  framesReceived: Record<Color, number>;
  /** Frames the merger dropped as undecodable, and as past their playout deadline. */
  framesSkipped: number;
  framesLate: number;
  decodeErrors: number;
  /** Packets that came as retransmissions (NACK + RTX), all streams. */
  packetsRecovered: number;
  /** Key-frame requests (PLI) the player sent on green while its base chain was broken. */
  pliSent: number;
  lastError?: string;
  /** Size of the last decoded frame (a lower rendition is smaller; it is shown at the stream's size). */
  width: number;
  height: number;
  /** The stream rendition of the last decoded frame (0: full size), and how often it changed. */
  rendition: number;
  renditionSwitches: number;
  /**
   * Lip sync as measured: audio playout time minus video display time for the same
   * source instant, median over the last frames drawn, ms (positive: the sound is
   * late); null without sound.
   */
  avSyncMs: number | null;
  /** The sound as received; null without sound. */
  audio: AudioReceiveStats | null;
  /** How long the player asks the sound's receiver to hold it for a picture that comes later (its jitter buffer target), ms; 0: not held; null without sound. */
  soundDelayMs: number | null;
  /**
   * Live latency: from when each frame entered the server to when it went on
   * screen, ms, over the last 10 s (the player's liveLatency.ts); null until the
   * server's clock offset and the first frames' times are known.
   */
  latencyMs: LatencySummary | null;
  /** From the publisher's capture to display, as latencyMs, when the publisher stamps its frames with the wall clock; else null. */
  latencyFromCaptureMs: LatencySummary | null;
  /** What each stage added to the latency over the same frames; null until known. */
  latencyStagesMs: LatencyStages | null;
}

/**
 * The stages of the live latency, medians over the frames drawn in the last 10 s, ms
 * (null: not measured): `publisher` its capture to the server's entry (its encoder,
 * the link to the server; null unless it stamps its capture time), `ingest` the
 * entry to the server's VP8 encoder giving the frame (FFmpeg's demux and decode,
 * scaling, the encode), `network` the encoder to the frame's arrival in the player
 * (the server's fan-out and pacer, the link, the browser's RTP receiver), `buffer`
 * its arrival to its decode (waiting for its packets and references, the decode),
 * `display` its decode to its draw (the display clock's playout delay).
 */
export interface LatencyStages {
  publisher: number | null;
  ingest: number | null;
  network: number | null;
  buffer: number | null;
  display: number | null;
}

/** Percentiles of the live latency over the frames drawn in a window, ms. */
export interface LatencySummary {
  p50: number;
  p95: number;
  last: number;
  /** Frames the figures are of. */
  frames: number;
}

/** A displayed frame period. */
export interface DisplaySample {
  /** When frame period `index` began (performance.now() ms of the page). */
  t: number;
  /** The source frame due. */
  index: number;
  /** The decoded frame shown: `index` itself, or an earlier frame repeated. */
  shown: number;
}

export interface QualitySample extends DisplaySample {
  /** dB; null when the table has no value (the frame shown is too old, or its row never came). */
  psnr: number | null;
}

/** The notice over the video. */
export interface PlayerNotice {
  /** What it is about: the joined stream's state, a session the server ended for good, or a browser that cannot play. */
  cause: Exclude<StreamState, 'running'> | 'disconnected' | 'unsupported';
  text: string;
  /** A detail for whoever can use it (the source's error), when the server gave one. */
  detail?: string;
}

export interface AudioOutputState {
  /** The stream has sound and its track is attached. */
  available: boolean;
  /** Muted by the user, or by the autoplay rule (then `blocked` too). */
  muted: boolean;
  /** 0 to 1. */
  volume: number;
  /** The browser refused to start sound without a user gesture: the page should show an "unmute" button. */
  blocked: boolean;
}

/**
 * `state`, `error`, `viewerId`, `streamState`, `notice`, `upta`, `transport`, `node`, `firstFrameMs` and `joinPhasesMs` are own data
 * properties, kept current, so a test can read them directly or serialize the object. `Track` is the page's
 * MediaStreamTrack (a DOM type this package does not load).
 */
export interface PelsTestHook<Track = unknown> {
  state: PlayerState;
  error?: string;
  viewerId?: string;
  /** The selected stream's state, as the server last told it. */
  streamState?: StreamState;
  /** The notice over the video (the source not sending, a disconnect for good, a browser that cannot play). */
  notice?: PlayerNotice;
  /** The banner text of the server's useless-packet avoidance (base layer only, or paused and why). Absent while every layer comes. */
  upta?: string;
  /** How the media reaches the player, as the server says: udp, or tcp and relay (served best effort). */
  transport?: MediaTransport;
  /** performance.now() when the page heard of its first decoded frame: page load to first frame, ms. Absent until then. */
  firstFrameMs?: number;
  /** The cluster's edge (its node id) the current session was placed on; absent on a single server. */
  node?: string;
  /**
   * Where the last session that played spent its join, ms per phase in order (placement, connect, the signaling
   * requests, the local consumers, firstFrame: from the last request to the first decoded frame). Absent until then.
   */
  joinPhasesMs?: Record<string, number>;
  stats(): PlayerStats;
  /**
   * The displayed frame periods of the current session, oldest first (the last
   * 20000): `psnr` is the Y-PSNR of the frame shown against frame `index` in dB (null
   * when unknown: the shown frame is more than 8 frames old, or the server's row never came).
   */
  qualitySamples(): QualitySample[];
  /** Green is always included; resolves once the server has applied the change. */
  setColors(colors: Color[]): Promise<void>;
  /**
   * The sound: its state (available, muted, volume, blocked by the autoplay rule), the track played (null before it is
   * consumed), and what the <audio> element that plays it does: muted, paused.
   */
  audio(): { state: AudioOutputState; track: Track | null; element: { muted: boolean; paused: boolean } };
}
