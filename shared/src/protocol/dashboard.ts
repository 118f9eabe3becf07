/**
 * The operator dashboard's live feed, a WebSocket at /ws/operator.
 * The browser cannot set headers on a WebSocket, and a token in the URL ends
 * up in logs and history, so the client authenticates with its first message.
 * Dashboard -> server: `hello` once. Server -> dashboard: a `snapshot` right
 * after a good hello and then about once a second, or one `error` before the
 * server closes the socket. Both directions are validated here.
 */
import { z } from 'zod';
import { COLORS } from '../pels/color';
import { FLOW_MODES } from './api';
import type { OperatorSnapshot } from './operator';
import { congestionStateSchema, STREAM_STATES } from './signaling';

export const DASHBOARD_WS_PATH = '/ws/operator';

/** Close codes (4000-4999 are the application's). */
export const DASHBOARD_CLOSE = { unauthorized: 4401, badMessage: 4400 } as const;

export const dashboardRequestSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('hello'), token: z.string().min(1).max(1024) }).strict()]);
export type DashboardRequest = z.infer<typeof dashboardRequestSchema>;

export type DashboardMessage =
  | { type: 'snapshot'; data: OperatorSnapshot }
  | { type: 'error'; error: { code: 'unauthorized' | 'bad_request'; message: string } };

const colorStateSchema = z.object({ lossFraction: z.number(), recentLoss: z.number().nullable() });
const layerKbpsSchema = z.object({ tid0: z.number(), tid1: z.number(), tid2: z.number(), total: z.number() });

/**
 * The fields the dashboard reads; objects pass through with their other fields
 * (a newer server may send more).
 */
const snapshotSchema = z.looseObject({
  at: z.string(),
  streams: z.array(
    z.looseObject({
      id: z.string(),
      name: z.string(),
      source: z.string(),
      state: z.enum(STREAM_STATES),
      error: z.string().optional(),
      frameRate: z.number(),
      framesIngested: z.number(),
      restarts: z.number(),
      layerKbps: layerKbpsSchema.nullable(),
      viewers: z.number(),
    }),
  ),
  viewers: z.array(
    z.looseObject({
      id: z.string(),
      streamId: z.string(),
      mode: z.enum(FLOW_MODES),
      connectedAt: z.string(),
      rateKbps: z.number(),
      sentKbps: z.number(),
      gamma: z.number(),
      lossP: z.number().nullable(),
      congestion: congestionStateSchema,
      rttMs: z.number().nullable(),
      perColor: z.object(Object.fromEntries(COLORS.map((c) => [c, colorStateSchema])) as Record<(typeof COLORS)[number], typeof colorStateSchema>),
      psnrDb: z.number().nullable(),
      rtx: z.looseObject({ repaired: z.array(z.enum(COLORS)) }),
    }),
  ),
  router: z.object({
    feedback: z.enum(['rtcp', 'router']),
    latest: z.looseObject({ p: z.number(), epoch: z.number(), offeredKbps: z.number().optional(), capacityKbps: z.number().optional(), receivedAt: z.string() }).nullable(),
  }),
  control: z.object({
    gains: z.object({ alphaKbps: z.number(), beta: z.number(), sigma: z.number(), pThr: z.number() }),
    appliesTo: z.literal('new-viewers'),
  }),
});

const dashboardMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), data: snapshotSchema }),
  z.object({ type: z.literal('error'), error: z.object({ code: z.enum(['unauthorized', 'bad_request']), message: z.string() }) }),
]);

/** Parses one JSON text frame against a schema; never throws (the dashboard's feed, an origin's edge socket). */
export function parseJsonMessage<T>(schema: z.ZodType, text: string): { ok: true; value: T } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, message: 'message is not valid JSON' };
  }
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data as T };
  const issue = r.error.issues[0];
  return { ok: false, message: `invalid message${issue?.path.length ? ` at ${issue.path.join('.')}` : ''}: ${issue?.message ?? 'unknown'}` };
}

export const parseDashboardRequest = (text: string) => parseJsonMessage<DashboardRequest>(dashboardRequestSchema, text);
/** The snapshot's checked fields are as declared; the rest is the server's word. */
export const parseDashboardMessage = (text: string) => parseJsonMessage<DashboardMessage>(dashboardMessageSchema, text);
