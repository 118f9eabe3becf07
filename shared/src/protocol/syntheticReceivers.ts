/**
 * What the synthetic receivers (receivers/, Go) print: the contract between
 * them and the load test, testbed and soak that read it. Strict: a field the
 * Go side adds or renames fails the parse (and receivers' test checks the Go
 * output against these schemas), so the two sides cannot drift apart silently.
 */
import { z } from 'zod';
import { COLORS } from '../pels/color';

const count = z.number().int().nonnegative();

export const colorCountsSchema = z.strictObject({
  packets: count,
  expected: count,
  lost: z.number().int(),
  jitterMs: z.number().nonnegative(),
  bytes: count,
  duplicates: count,
});
export type ColorCounts = z.infer<typeof colorCountsSchema>;

export const layerCountsSchema = z.strictObject({ complete: count, incomplete: count, keyframes: count });
export type LayerCounts = z.infer<typeof layerCountsSchema>;

export const frameDeliverySchema = z.strictObject({ received: count, sent: count });
export type FrameDelivery = z.infer<typeof frameDeliverySchema>;

const colorKey = z.enum(COLORS);

/**
 * A placed receiver's edge lost (its socket closed, or it said drain) and the way back through the front:
 * `ms` from the loss to the first complete keyframe on green from the new edge (null: not back by the end).
 */
export const rejoinSchema = z.strictObject({ lostAtMs: count, ms: z.number().nonnegative().nullable(), from: z.string(), to: z.string().optional(), attempts: count });
export type Rejoin = z.infer<typeof rejoinSchema>;

export const receiverResultSchema = z.strictObject({
  index: count,
  joined: z.boolean(),
  /** The server's id of the viewer, once it sent the receiver its state. */
  viewerId: z.string().optional(),
  error: z.string().optional(),
  joinMs: z.number().nonnegative().nullable(),
  colors: z.partialRecord(colorKey, colorCountsSchema),
  layers: z.tuple([layerCountsSchema, layerCountsSchema, layerCountsSchema]),
  green: frameDeliverySchema,
  all: frameDeliverySchema,
  nacksSent: z.partialRecord(colorKey, count),
  server: z
    .strictObject({
      framesSent: z.number().int(),
      nacksReceived: count,
      rtxPacketsSent: count,
      feedbackSteps: count,
      rttMs: z.number().nullable(),
      rateKbps: z.number(),
      mode: z.string(),
      transport: z.string().nullable(),
    })
    .nullable(),
  /** Receiver-driven layers (`--rx rlm`): layers held at the end, joins and drops, colors asked for on average over the hold. */
  rlm: z
    .strictObject({ subscription: z.number().int(), adds: count, drops: count, meanColors: z.number(), setColors: count, setColorsFailed: count })
    .optional(),
  /** Joined through a cluster's front (`-place`): the edge it was placed on last, and each loss of its edge. */
  edge: z.string().optional(),
  rejoins: z.array(rejoinSchema).optional(),
});
export type ReceiverResult = z.infer<typeof receiverResultSchema>;

/** The report of a run with a hold (the default mode), on stdout at the end. */
export const receiversReportSchema = z.strictObject({
  viewers: count,
  rampPerSecond: z.number().positive(),
  holdSeconds: z.number().nonnegative(),
  /** The receivers' process over the hold: CPU seconds, and its peak resident memory. */
  cpuSeconds: z.number().nonnegative(),
  maxRssMb: z.number().nonnegative(),
  receivers: z.array(receiverResultSchema),
});
export type ReceiversReport = z.infer<typeof receiversReportSchema>;

/** One life of a churning receiver (`-stay`), a JSON line on stdout when it ends: counts from its first keyframe. */
export const receiverLifeSchema = receiverResultSchema.extend({
  event: z.literal('left'),
  startedMs: count,
  /** 0: it never joined. */
  joinedMs: count,
  leftMs: count,
  /** The run ended it before its stay did. */
  cut: z.boolean(),
});
export type ReceiverLife = z.infer<typeof receiverLifeSchema>;
