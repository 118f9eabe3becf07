/**
 * Signaling between the player and the server over one WebSocket.
 * The player sends requests `{ id, method, data }`; the server answers each
 * with `{ id, ok: true, data }` or `{ id, ok: false, error }`, and pushes
 * notifications `{ notification, data }`. Both directions are validated here.
 */
import { rateControllerNameSchema } from '../rate/names';
import { z } from 'zod';
import { COLORS, type Color } from '../pels/color';
import { FLOW_MODES, LOSS_DIAGNOSES, MEDIA_TRANSPORTS, UPTA_STATES, type RtxState, type ViewerState } from './api';

const colorSchema = z.enum(COLORS);
/**
 * The WebRTC parameter objects the player passes through (mediasoup-client's
 * RtpCapabilities and DtlsParameters). mediasoup checks their values; their
 * shape is checked here, so a malformed one is the sender's bad_request, not
 * a TypeError deep in the server.
 */
const mediaKind = z.enum(['audio', 'video']);
const rtpCapabilitiesSchema = z.object({
  codecs: z
    .array(
      z.object({
        kind: mediaKind,
        mimeType: z.string().max(64),
        preferredPayloadType: z.number().int().min(0).max(127).optional(),
        clockRate: z.number().int().positive(),
        channels: z.number().int().positive().optional(),
        parameters: z.record(z.string().max(64), z.unknown()).optional(),
        rtcpFeedback: z.array(z.object({ type: z.string().max(64), parameter: z.string().max(64).optional() })).max(32).optional(),
      }),
    )
    .max(64)
    .optional(),
  headerExtensions: z
    .array(
      z.object({
        kind: mediaKind,
        uri: z.string().max(256),
        preferredId: z.number().int().min(1).max(255),
        preferredEncrypt: z.boolean().optional(),
        direction: z.enum(['sendrecv', 'sendonly', 'recvonly', 'inactive']).optional(),
      }),
    )
    .max(64)
    .optional(),
});
export type RtpCapabilitiesData = z.infer<typeof rtpCapabilitiesSchema>;
const dtlsParametersSchema = z.object({
  role: z.enum(['auto', 'client', 'server']).optional(),
  fingerprints: z.array(z.object({ algorithm: z.string().max(32), value: z.string().max(256) })).min(1).max(8),
});
export type DtlsParametersData = z.infer<typeof dtlsParametersSchema>;

/** A rendition index (0: the stream's own encoding, at full size) or 'auto': the server chooses by the viewer's rate. */
const renditionChoiceSchema = z.union([z.literal('auto'), z.number().int().nonnegative().max(63)]);
export type RenditionChoice = z.infer<typeof renditionChoiceSchema>;

const colorsSchema = z.array(colorSchema).min(1).refine((c) => c.includes('green'), 'green (the base layer) cannot be dropped');

/**
 * A join takes two requests where it once took eight (decision 016): `join` may name no stream (the server's first)
 * and may ask for the transport at once; `consume` may take the sound, the colors, the rendition and the resume with
 * the video. The single-step requests (getStreams, createTransport, consumeAudio, setColors, resume) stay for the
 * synthetic receivers and any player that uses them.
 */
export const requestSchema = z.discriminatedUnion('method', [
  z.object({ id: z.number().int(), method: z.literal('getStreams'), data: z.object({}).optional() }),
  z.object({
    id: z.number().int(),
    method: z.literal('join'),
    data: z.object({
      /** Absent: the server's first stream (the answer's `streams` lists them all). */
      streamId: z.string().min(1).max(64).optional(),
      mode: z.enum(FLOW_MODES).optional(),
      controller: z.string().min(1).max(32).optional(),
      /** Create the viewer's transport in the same request: the answer carries its parameters. */
      transport: z.boolean().optional(),
    }),
  }),
  z.object({ id: z.number().int(), method: z.literal('createTransport'), data: z.object({}).optional() }),
  z.object({ id: z.number().int(), method: z.literal('connectTransport'), data: z.object({ dtlsParameters: dtlsParametersSchema }) }),
  z.object({
    id: z.number().int(),
    method: z.literal('consume'),
    data: z.object({
      rtpCapabilities: rtpCapabilitiesSchema,
      /** The sound too, as consumeAudio would (the answer's `audio`). */
      audio: z.boolean().optional(),
      /** The colors wanted, as setColors would, before sending starts. */
      colors: colorsSchema.optional(),
      /** Start sending once consumed, as resume would; the server asks the encoder for a keyframe once the transport is connected. */
      resume: z.boolean().optional(),
      /** The quality menu's choice, as setRendition would; a refusal does not fail the request (the answer's `renditionRefused`). */
      rendition: renditionChoiceSchema.optional(),
    }),
  }),
  z.object({ id: z.number().int(), method: z.literal('consumeAudio'), data: z.object({ rtpCapabilities: rtpCapabilitiesSchema }) }),
  z.object({ id: z.number().int(), method: z.literal('resume'), data: z.object({}).optional() }),
  z.object({
    id: z.number().int(),
    method: z.literal('setColors'),
    data: z.object({ colors: colorsSchema }),
  }),
  z.object({ id: z.number().int(), method: z.literal('leave'), data: z.object({}).optional() }),
  // What the viewer's display scored, for the operator (the server cannot see what was shown).
  z.object({
    id: z.number().int(),
    method: z.literal('reportQuality'),
    data: z.object({
      psnrMeanDb: z.number().min(0).max(100).nullable(),
      freezes: z.number().int().nonnegative(),
      checksumMismatches: z.number().int().nonnegative(),
      fps: z.number().nonnegative().max(1000),
      /** Live latency (frame entry at the server to display), ms, over the player's last 10 s; null before it is known. */
      latencyMs: z.object({ p50: z.number().min(-60_000).max(600_000), p95: z.number().min(-60_000).max(600_000) }).nullable().optional(),
    }),
  }),
  // The quality menu: hold one of the stream's renditions (0: full size) whatever the rate, or let the rate choose again.
  z.object({ id: z.number().int(), method: z.literal('setRendition'), data: z.object({ rendition: renditionChoiceSchema }) }),
  // Whether the player's selected ICE candidate is a TURN relay: the server cannot tell from the packets it gets.
  z.object({ id: z.number().int(), method: z.literal('reportTransport'), data: z.object({ relay: z.boolean() }) }),
  // The server's clock, for the player's offset to it (its live latency counts from server times).
  z.object({ id: z.number().int(), method: z.literal('clock'), data: z.object({}).optional() }),
]);
export type Request = z.infer<typeof requestSchema>;
export type Method = Request['method'];

/**
 * A source's ingest state. `stalled`: it was running and no frame has come for a
 * couple of seconds; it goes back to `running` with the next frame, or to
 * `restarting` when the server gives up on it and restarts FFmpeg.
 * A live stream (one a publisher sends to) is `waiting` until a publisher
 * sends, and `reconnecting` for a while after its publisher went away.
 */
export const STREAM_STATES = ['starting', 'running', 'stalled', 'restarting', 'failed', 'stopped', 'waiting', 'reconnecting'] as const;
export type StreamState = (typeof STREAM_STATES)[number];

export interface StreamInfo {
  id: string;
  name: string;
  source: string;
  state: StreamState;
  /** The last ingest error, for a stream that failed or is restarting. */
  error?: string;
  width: number;
  height: number;
  /**
   * The sizes and target rates the stream is encoded at, highest first: [0] is
   * width x height, the lower ones are for viewers whose rate cannot carry it.
   * A player shows every rendition at width x height.
   */
  renditions: { width: number; height: number; bitrateKbps: number }[];
  frameRate: number;
  /** RTP clock ticks between consecutive frames (90 kHz clock). */
  ticksPerFrame: number;
  framesIngested: number;
  restarts: number;
  /**
   * The stream's sound as the viewers get it, null when it has none (or its
   * source has not been opened yet): always Opus, 48 kHz; `passthrough` when
   * the source's own Opus is forwarded without re-encoding.
   */
  audio: { codec: 'opus'; passthrough: boolean } | null;
}

/** A STUN or TURN server for the player's RTCPeerConnection (the browser's RTCIceServer). */
export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export interface TransportParams {
  id: string;
  iceParameters: unknown;
  iceCandidates: unknown[];
  dtlsParameters: unknown;
  /** STUN/TURN servers the player gives its RTCPeerConnection (TURN credentials made for this viewer); may be empty. */
  iceServers: IceServer[];
}

export interface ConsumerParams {
  id: string;
  producerId: string;
  kind: 'video';
  rtpParameters: unknown;
  color: Color;
}

/** The stream's sound on the viewer's transport (consumeAudio). */
export interface AudioConsumerParams {
  id: string;
  producerId: string;
  kind: 'audio';
  rtpParameters: unknown;
}

/**
 * The sound, and how its RTP timestamps meet the video's: the stream's frame
 * `index` starts at audio timestamp (timestampBase + index * clockRate / frameRate)
 * mod 2^32, the instant the video's timestamp for `index` stands for.
 */
export interface AudioConsume {
  consumer: AudioConsumerParams;
  timestampBase: number;
  clockRate: number;
}

/** What each method answers with. */
export interface ResponseData {
  getStreams: { streams: StreamInfo[] };
  join: {
    viewerId: string;
    stream: StreamInfo;
    /** Every stream of the server, as getStreams answers. */
    streams: StreamInfo[];
    /** The viewer's transport, when the join asked for it. */
    transport?: TransportParams;
    routerRtpCapabilities: unknown;
    /**
     * Random start of this viewer's RTP timestamps: the stream's frame `index` has RTP
     * timestamp (timestampBase + index * ticksPerFrame) mod 2^32. With the stream's
     * framesIngested it tells the player which source frame a received frame is.
     */
    timestampBase: number;
  };
  createTransport: TransportParams;
  connectTransport: Record<string, never>;
  consume: {
    consumers: ConsumerParams[];
    /** The sound, when asked for. */
    audio?: AudioConsume;
    /** Why the rendition asked for was not taken (the video plays on regardless). */
    renditionRefused?: string;
  };
  consumeAudio: AudioConsume;
  resume: Record<string, never>;
  setColors: { colors: Color[] };
  leave: Record<string, never>;
  reportQuality: Record<string, never>;
  reportTransport: Record<string, never>;
  setRendition: { rendition: RenditionChoice };
  /** The server's epoch ms when it answered. */
  clock: { serverMs: number };
}

/** `unauthorized` and `rate_limited` (too many wrong tokens from one address) are the operator API's; signaling never sends them. */
export type ErrorCode = 'bad_request' | 'unauthorized' | 'rate_limited' | 'not_found' | 'invalid_state' | 'unavailable' | 'internal';
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

export type Response<M extends Method = Method> =
  | { id: number | null; ok: true; data: ResponseData[M] }
  | { id: number | null; ok: false; error: ErrorBody };

/**
 * One source frame's row of the stream's PSNR table, computed by the server from its
 * own decode of the stream: `psnr[k]` is the Y-PSNR (dB) of decoded frame index - k
 * shown while frame `index` is due (k = 0: the frame itself; k > 0: an earlier frame
 * repeated because later ones are missing), null where the table has no such frame;
 * `crc` is the CRC32 of decoded frame `index`'s Y plane (width * height bytes, no
 * stride padding); `tid` its temporal layer. Each rendition of the stream has its own
 * table. Offsets rather than [j, dB] pairs: rows go to every viewer 30 times a second.
 */
export const qualityFrameSchema = z.object({
  index: z.number().int().nonnegative(),
  tid: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  crc: z.number().int().min(0).max(0xffffffff),
  psnr: z.array(z.number().nullable()).max(256),
  /** Which rendition's decode the row is of (absent: 0, the stream's own encoding); every rendition is scored at the stream's size. */
  rendition: z.number().int().positive().optional(),
  /** When the frame entered the server (epoch ms, the server's clock): a publisher's frame when it arrived, others when encoded. The player's live latency counts from it. */
  ingestMs: z.number().nonnegative().optional(),
  /** When the server's encoder gave the frame (epoch ms, the server's clock): the player measures the stages of its latency from the three times. */
  encodedMs: z.number().nonnegative().optional(),
  /** When its publisher captured the frame (epoch ms, the server's clock), when the publisher stamps its frames with the wall clock. */
  captureMs: z.number().nonnegative().optional(),
});
export type QualityFrame = z.infer<typeof qualityFrameSchema>;

/** The rows computed since the last batch, sent to each viewer of the stream about twice a second. */
export const qualityBatchSchema = z.object({ frames: z.array(qualityFrameSchema) });
export type QualityBatch = z.infer<typeof qualityBatchSchema>;

const colorStateSchema = z.object({
  packetsSent: z.number(),
  packetsLost: z.number(),
  lossFraction: z.number(),
  recentLoss: z.number().nullable(),
});

export const congestionStateSchema = z.object({
  diagnosis: z.enum(LOSS_DIAGNOSES),
  measuredLoss: z.number().nullable(),
  congestion: z.number().nullable(),
  wireLoss: z.number().nullable(),
  queueDelayMs: z.number().nullable(),
  baseCongestion: z.number(),
});

/** The fields of a `viewerState` notification the player uses; the rest passes unchecked. */
export type ViewerStateUpdate = Pick<ViewerState, 'mode' | 'controller' | 'transport' | 'rateKbps' | 'gamma' | 'lossP' | 'congestion' | 'rttMs' | 'sentKbps' | 'perColor' | 'upta'> & {
  rtx: Pick<RtxState, 'repaired'>;
};
export const viewerStateUpdateSchema: z.ZodType<ViewerStateUpdate> = z.object({
  mode: z.enum(FLOW_MODES),
  controller: rateControllerNameSchema,
  transport: z.enum(MEDIA_TRANSPORTS).nullable(),
  rateKbps: z.number(),
  gamma: z.number(),
  lossP: z.number().nullable(),
  congestion: congestionStateSchema,
  rttMs: z.number().nullable(),
  sentKbps: z.number(),
  perColor: z.object({ green: colorStateSchema, yellow: colorStateSchema, red: colorStateSchema }),
  upta: z.object({ state: z.enum(UPTA_STATES), since: z.string(), reason: z.string(), probing: z.boolean(), expectedDb: z.number().nullable() }).nullable(),
  rtx: z.object({ repaired: z.array(colorSchema) }),
});

/**
 * The server ended this viewer's session. `rejoin: false` (an operator's disconnect):
 * the player must not rejoin by itself, only when its user asks. Otherwise (the stream
 * was removed, the media worker restarted) rejoining after a backoff may work.
 */
export interface ViewerClosed {
  reason: string;
  rejoin: boolean;
}

/**
 * The edge serving this viewer drains (it is stopping): the player leaves and asks its front's `/api/place`
 * again, excluding `node` (this edge's id), as when the edge is lost (docs/api.md).
 */
export interface MoveNotice {
  node: string;
  reason: string;
}

export type Notification =
  /** The joined stream's state changed (e.g. stalled, restarting, running again). */
  | { notification: 'streamState'; data: StreamInfo }
  | { notification: 'viewerClosed'; data: ViewerClosed }
  /** Rows of the stream's PSNR table, validated with qualityBatchSchema by the player. */
  | { notification: 'quality'; data: QualityBatch }
  /** The viewer's server-side state (MKC rate, gamma, per-color loss), once a second. */
  | { notification: 'viewerState'; data: ViewerState }
  | { notification: 'move'; data: MoveNotice };

export type ServerMessage = Response | Notification;

export type ParsedRequest = { ok: true; request: Request } | { ok: false; id: number | null; error: ErrorBody };

/** Parses one text frame from a player; never throws. */
export function parseRequest(text: string): ParsedRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: { code: 'bad_request', message: 'message is not valid JSON' } };
  }
  const result = requestSchema.safeParse(raw);
  if (result.success) return { ok: true, request: result.data };
  const id = typeof raw === 'object' && raw !== null && Number.isInteger((raw as { id?: unknown }).id) ? ((raw as { id: number }).id) : null;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length ? ` at ${issue.path.join('.')}` : '';
  return { ok: false, id, error: { code: 'bad_request', message: `invalid request${where}: ${issue?.message ?? 'unknown'}` } };
}
