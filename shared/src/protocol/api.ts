/** Shapes of the HTTP API (`/api/...`) shared by the server, the testbed and the dashboard. */
import type { RateControllerName } from '../rate/names';
import type { Color } from '../pels/color';

/**
 * How a viewer's flow is sent. `pels`: colored by importance (AF41/42/43), green
 * retransmitted (NACK + RTX), yellow and red too while the loss is wire loss
 * and the rate has room for it (`rtx.repaired`); `best-effort`: one DSCP, no retransmission; `nack`:
 * one DSCP, every stream retransmitted (what a stock SFU with NACK does); `rlm`:
 * receiver-driven layers, every frame of each temporal layer on its own stream
 * (TID 0 green, 1 yellow, 2 red) with no sender rate control, one DSCP, no
 * retransmission: the viewer chooses its layers with `setColors`.
 */
export const FLOW_MODES = ['pels', 'best-effort', 'nack', 'rlm'] as const;
export type FlowModeName = (typeof FLOW_MODES)[number];

/**
 * The player page's `<meta name="pels-placement" content="...">`, written by the node that serves it:
 * `registry` when the node places viewers (`/api/place`), `none` on a single server, whose player opens
 * its own `/ws` without asking. A page without it (e.g. from `vite dev`) asks.
 */
export const PLACEMENT_META = 'pels-placement';
export type PagePlacement = 'registry' | 'none';

/**
 * How a viewer's media reaches it: `udp` straight from the server's RTC port,
 * `tcp` over ICE-TCP, `relay` through a TURN server. Only over `udp` can each
 * packet carry its color's DSCP to the viewer; over tcp and relay the viewer is
 * served best effort.
 */
export const MEDIA_TRANSPORTS = ['udp', 'tcp', 'relay'] as const;
export type MediaTransport = (typeof MEDIA_TRANSPORTS)[number];

export interface ColorState {
  /** RTP packets the server sent on this color's stream. */
  packetsSent: number;
  /** Cumulative packets lost, from the viewer's RTCP receiver reports. */
  packetsLost: number;
  /** packetsLost / packetsSent over the whole session (0..1). */
  lossFraction: number;
  /** Loss over the last receiver report interval (0..1), null before the first report. */
  recentLoss: number | null;
}

export interface DscpStatus {
  enabled: boolean;
  /** Why marking is off (e.g. no privilege to change nftables). */
  reason?: string;
}

/**
 * What a viewer's loss is read as. A PELS router drops red first and green
 * last, while loss on the wire (radio, a bad cable) hits every color alike;
 * a drop-tail FIFO drops every color alike too, but only once its queue has
 * grown, which the round trip shows. `congestion` is what the rate controller
 * steps on; wire loss is left to retransmission.
 */
export const LOSS_DIAGNOSES = ['clear', 'wire-loss', 'congestion'] as const;
export type LossDiagnosis = (typeof LOSS_DIAGNOSES)[number];

export interface CongestionState {
  diagnosis: LossDiagnosis;
  /** The enhancement layer's loss over the last step, as reported (0..1); null before the first report. */
  measuredLoss: number | null;
  /** The part of it the bottleneck's queue caused (0..1): what the rate controller steps on; null before the first report. */
  congestion: number | null;
  /** Loss that hits every color alike, smoothed over recent reports (0..1); null before the first report. */
  wireLoss: number | null;
  /** Round trip above the lowest one seen recently, ms: a queue building; null before a round trip is measured. */
  queueDelayMs: number | null;
  /** The base layer's loss beyond the wire's (0..1): the link does not carry the base layer. */
  baseCongestion: number;
}

export interface ViewerState {
  id: string;
  streamId: string;
  /** The mode in force: best effort whenever `transport` is not udp, whatever was asked for. */
  mode: FlowModeName;
  /** The rate controller setting rateKbps (RATE_CONTROLLER, the stream's or the viewer's choice). */
  controller: RateControllerName;
  /** How the media reaches the viewer; null until ICE has chosen a path. */
  transport: MediaTransport | null;
  /** ISO 8601. */
  connectedAt: string;
  /** Colors the viewer subscribes to. */
  colors: Color[];
  /** MKC rate, kb/s. */
  rateKbps: number;
  /** Share of enhancement bytes sent red. */
  gamma: number;
  /** Latest p that drove the controllers (0..1): the congestion estimate (`congestion.congestion`), null before the first report. */
  lossP: number | null;
  /** How the loss the viewer's reports show is read: congestion, wire loss, or neither. */
  congestion: CongestionState;
  /** Controller steps taken (fresh feedback events). */
  feedbackSteps: number;
  rttMs: number | null;
  /** SSRC of each color's stream as sent to the viewer (the consumers' SSRCs, seen on the wire). */
  ssrcs: Record<Color, number>;
  perColor: Record<Color, ColorState>;
  framesSent: { tid0: number; tid1: number; tid2: number };
  framesSkipped: number;
  /** Sent rate over the last second, kb/s. */
  sentKbps: number;
  dscp: DscpStatus;
  /** Mean Y-PSNR of the frames the viewer displayed this session, as its player reports it; null before a report. */
  psnrDb: number | null;
  /**
   * As the player reports them: freezes (a frame shown over 200 ms), checksum mismatches, decoded fps, and its
   * live latency (frame entry at the server to display, ms, over its last 10 s; null until known).
   */
  display: { freezes: number; checksumMismatches: number; fps: number; latencyMs?: { p50: number; p95: number } | null } | null;
  rtx: RtxState;
  /** Key-frame requests (PLI and FIR) the viewer sent on each color stream. */
  keyframeRequests: Record<Color, number>;
  /** The flow's pacer: the rate packets leave at (2.5 times the flow's target), bytes waiting, and how long frames waited in it. */
  pacing: PacingState;
  rendition: RenditionState;
  /** Useless-packet avoidance (UPTA); null when it is off (UPTA) or the viewer chooses its own layers (rlm). */
  upta: UptaStatus | null;
  /** The viewer's sound as sent, null until the player consumes it (a stream without sound, a synthetic viewer). */
  audio: AudioState | null;
}

export interface PacingState {
  kbps: number;
  backlogBytes: number;
  /** Frames sent over the session, and the sum and the longest of their waits (arrival to last packet sent), ms. */
  delay: { frames: number; totalMs: number; maxMs: number };
}

/**
 * A viewer's sound (one Opus stream, marked as green): sent rate over the last
 * second (counted in the viewer's rate), packets sent, and the loss and
 * retransmission the player's RTCP reports (NACK only where the player
 * negotiated it for Opus).
 */
export interface AudioState {
  /** The sound's SSRC to this viewer (and its retransmissions', when NACK was negotiated). */
  ssrc: number;
  rtxSsrc: number | null;
  kbps: number;
  packetsSent: number;
  packetsLost: number;
  /** The last receiver report's fraction lost, 0-1. */
  fractionLost: number;
  nackCount: number;
  packetsRetransmitted: number;
}

/** UPTA states: every layer, the base layer only, or nothing (the video would be unintelligible at the viewer's loss). */
export const UPTA_STATES = ['full', 'baseOnly', 'paused'] as const;
export type UptaStateName = (typeof UPTA_STATES)[number];

/** What the server sends a viewer given its measured loss, and why. */
export interface UptaStatus {
  state: UptaStateName;
  /** ISO 8601: when the state began. */
  since: string;
  reason: string;
  /** Paused, and the base layer is sent for a few seconds to see whether the path has recovered. */
  probing: boolean;
  /** Expected Y-PSNR of every layer at the loss measured over the last seconds, dB; null while nothing is measured (or no PSNR table yet). */
  expectedDb: number | null;
}

/** Which of the stream's renditions (StreamInfo.renditions) the viewer receives, and how it got there. */
export interface RenditionState {
  /** The rendition being sent (0: the stream's own encoding, at full size). */
  current: number;
  /** Where the viewer is moving, waiting for that rendition's keyframe; null when it is not. */
  pending: number | null;
  /** The rendition the viewer's player pinned (its quality menu), held whatever the rate; null: chosen by the rate (Auto). */
  pinned: number | null;
  /** Switches made so far. */
  switches: number;
  /** Milliseconds spent sending each rendition, by index. */
  timeMs: number[];
  /** Each rendition's base-layer rate as last measured, kb/s (the stream's meter, over 4 s; null: not measured yet). The choice reads the lowest and highest of these over its base window. */
  baseKbps: (number | null)[];
}

/**
 * Retransmission (NACK + RTX): set per color stream when the viewer starts
 * consuming, by the mode then in force; of those, the server lets through the
 * retransmissions of the colors the mode repairs now, and drops the others'.
 */
export interface RtxState {
  /** The RTX SSRC of each color stream consumed with retransmission, as seen on the wire; none before consume. */
  ssrcs: Partial<Record<Color, number>>;
  /** The colors whose retransmissions reach the viewer now: green, and under PELS yellow and red while their repair pays. */
  repaired: Color[];
  /** Under PELS: why yellow and red cannot be repaired (consumed without retransmission), null when they can. */
  repairUnavailable: string | null;
  /** NACK packets the viewer sent. */
  nacksReceived: number;
  /** Packets retransmitted, and their bytes, as the media worker sent them: with those the server then dropped (colors not repaired). */
  packetsSent: number;
  bytesSent: number;
}
