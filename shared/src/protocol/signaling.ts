/**
 * Signaling between the player and the server over one WebSocket.
 * The player sends requests `{ id, method, data }`; the server answers each
 * with `{ id, ok: true, data }` or `{ id, ok: false, error }`, and pushes
 * notifications `{ notification, data }`. Both directions are validated here.
 */
import { z } from 'zod';
import { COLORS, type Color } from '../pels/color';

const colorSchema = z.enum(COLORS);
/** mediasoup validates these objects itself; here we only check their shape. */
const opaque = z.record(z.string(), z.unknown());

export const requestSchema = z.discriminatedUnion('method', [
  z.object({ id: z.number().int(), method: z.literal('getStreams'), data: z.object({}).optional() }),
  z.object({
    id: z.number().int(),
    method: z.literal('join'),
    data: z.object({ streamId: z.string().min(1).max(64), mode: z.enum(['pels', 'best-effort']).optional() }),
  }),
  z.object({ id: z.number().int(), method: z.literal('createTransport'), data: z.object({}).optional() }),
  z.object({ id: z.number().int(), method: z.literal('connectTransport'), data: z.object({ dtlsParameters: opaque }) }),
  z.object({ id: z.number().int(), method: z.literal('consume'), data: z.object({ rtpCapabilities: opaque }) }),
  z.object({ id: z.number().int(), method: z.literal('resume'), data: z.object({}).optional() }),
  z.object({
    id: z.number().int(),
    method: z.literal('setColors'),
    data: z.object({ colors: z.array(colorSchema).min(1).refine((c) => c.includes('green'), 'green (the base layer) cannot be dropped') }),
  }),
  z.object({ id: z.number().int(), method: z.literal('leave'), data: z.object({}).optional() }),
]);
export type Request = z.infer<typeof requestSchema>;
export type Method = Request['method'];

export type StreamState = 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

export interface StreamInfo {
  id: string;
  name: string;
  source: string;
  state: StreamState;
  /** The last ingest error, for a stream that failed or is restarting. */
  error?: string;
  width: number;
  height: number;
  frameRate: number;
  /** RTP clock ticks between consecutive frames (90 kHz clock). */
  ticksPerFrame: number;
  framesIngested: number;
  restarts: number;
}

export interface TransportParams {
  id: string;
  iceParameters: unknown;
  iceCandidates: unknown[];
  dtlsParameters: unknown;
}

export interface ConsumerParams {
  id: string;
  producerId: string;
  kind: 'video';
  rtpParameters: unknown;
  color: Color;
}

/** What each method answers with. */
export interface ResponseData {
  getStreams: { streams: StreamInfo[] };
  join: { viewerId: string; stream: StreamInfo; routerRtpCapabilities: unknown };
  createTransport: TransportParams;
  connectTransport: Record<string, never>;
  consume: { consumers: ConsumerParams[] };
  resume: Record<string, never>;
  setColors: { colors: Color[] };
  leave: Record<string, never>;
}

export type ErrorCode = 'bad_request' | 'not_found' | 'invalid_state' | 'unavailable' | 'internal';
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

export type Response<M extends Method = Method> =
  | { id: number | null; ok: true; data: ResponseData[M] }
  | { id: number | null; ok: false; error: ErrorBody };

export type Notification =
  | { notification: 'streamState'; data: StreamInfo }
  | { notification: 'viewerClosed'; data: { reason: string } };

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
