/**
 * The operator's HTTP API (`/api/...` with the operator token): request bodies,
 * validated here at the edge, and the shapes the server answers with. The
 * dashboard's live feed (dashboard.ts) carries the same snapshot.
 */
import { rateControllerNameSchema, type RateControllerName } from '../rate/names';
import { z } from 'zod';
import { FLOW_MODES, type ViewerState } from './api';
import type { RouterFeedbackState } from './routerFeedback';
import type { StreamInfo } from './signaling';

/** Stream ids appear in URLs and metric labels: short, URL-safe. */
export const STREAM_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** POST /api/streams */
export const addStreamSchema = z.object({
  id: z.string().regex(STREAM_ID_PATTERN, 'id must be 1-64 letters, digits, "-" or "_", starting with a letter or digit').optional(),
  name: z.string().min(1).max(100).optional(),
  /** A file path, a URL FFmpeg can read, `lavfi:GRAPH`, or `live:` (a stream publishers send to with its key). */
  source: z.string().trim().min(1, 'source is empty').max(2048),
}).strict();

/** POST /api/streams: a stream, and for a live one whether a new publisher takes over from one publishing (default: refused). */
export const addStreamRequestSchema = addStreamSchema.extend({ takeover: z.boolean().optional() }).strict();
export type AddStreamRequest = z.infer<typeof addStreamRequestSchema>;

/** PUT /api/streams/:id/takeover */
export const setTakeoverSchema = z.object({ allow: z.boolean() }).strict();

/** Where a publisher sends to a live stream with its key; a protocol the server does not listen for is absent. */
export interface PublishUrls {
  /** rtmp://host:port/live/<key> (OBS: server rtmp://host:port/live, stream key <key>). */
  rtmp?: string;
  /** srt://host:port?streamid=<key>. */
  srt?: string;
  /** http(s)://host:port/whip/<stream> (OBS: service WHIP, this server URL, the key as bearer token). */
  whip?: string;
}

/** POST /api/streams (a live one) and POST /api/streams/:id/key: the key, shown once (the server keeps only its hash). */
export interface StreamKeyAnswer {
  key: string;
  publish: PublishUrls;
}

/** A live stream's publishing side, as the operator sees it. */
export interface LiveInfo {
  /** False once the key was revoked: nobody may publish until a new one is made. */
  keySet: boolean;
  takeover: boolean;
  publisher: { protocol: string; address: string; since: string } | null;
}

/** POST /api/viewers/:id/mode */
export const setModeSchema = z.object({ mode: z.enum(FLOW_MODES) }).strict();

/** POST /api/streams/:id/controller (the default of the stream's next viewers) and POST /api/viewers/:id/controller (at once). */
export const setControllerSchema = z.object({ controller: rateControllerNameSchema }).strict();

/** The controller gains an operator may change: MKC (eq. 8) and gamma (eq. 4). */
export interface ControllerGains {
  alphaKbps: number;
  beta: number;
  sigma: number;
  pThr: number;
}

/** The largest additive increase an operator may set: the controllers' rates are at most a few tens of Mb/s. */
export const MAX_ALPHA_KBPS = 10_000;

/**
 * The gains' shape, and alpha's upper bound. beta, sigma and pThr are bounded by the controllers' validators, which
 * name each stable range in their message ("pThr must be in (0, 1]"), as is alpha's lower bound.
 */
export const controllerGainsSchema = z
  .object({
    alphaKbps: z.number().max(MAX_ALPHA_KBPS),
    beta: z.number(),
    sigma: z.number(),
    pThr: z.number(),
  })
  .strict();

/** PUT /api/control: any subset of the gains; the rest keep their values. */
export const controlUpdateSchema = controllerGainsSchema
  .partial()
  .strict()
  .refine((u) => Object.keys(u).length > 0, 'give at least one of alphaKbps, beta, sigma, pThr');
export type ControlUpdate = z.infer<typeof controlUpdateSchema>;

/** GET/PUT /api/control */
export interface ControlSettingsInfo {
  gains: ControllerGains;
  /** Gains are fixed for a viewer's life: a change applies to viewers that join after it. */
  appliesTo: 'new-viewers';
}

/** Measured bitrate of each temporal layer of a source, kb/s. */
export interface LayerKbps {
  tid0: number;
  tid1: number;
  tid2: number;
  total: number;
}

/** A source's keyframe requests since it started, by reason, and the keyframes its encoder was asked for (fewer: requests are throttled). */
export interface KeyframeCounts {
  /** `switch`: a viewer moving to another rendition waits for its keyframe. */
  requests: { join: number; pli: number; switch: number };
  forced: number;
}

/** A source as the operator sees it: the player's StreamInfo plus what only the operator needs. */
export interface OperatorStream extends StreamInfo {
  /** The rate controller of viewers that join from now on (unless the player asks for another). */
  controller: RateControllerName;
  /** Null until a second of frames has been measured. */
  layerKbps: LayerKbps | null;
  viewers: number;
  keyframes: KeyframeCounts;
  /** A live stream's publishing side (absent: the stream reads its source itself). */
  live?: LiveInfo;
}

/** A viewer's state; `psnrDb` is what its player reported (null before its first report). */
export type OperatorViewer = ViewerState;

/** Everything the dashboard shows, at one instant. GET /api/operator/snapshot and the dashboard feed. */
export interface OperatorSnapshot {
  /** ISO 8601. */
  at: string;
  streams: OperatorStream[];
  viewers: OperatorViewer[];
  /** What steps the controllers, and the router agent's latest eq. 11 sample (null when no agent reports). */
  router: { feedback: 'rtcp' | 'router'; latest: RouterFeedbackState | null };
  control: ControlSettingsInfo;
}
