/**
 * Explicit congestion feedback from a PELS router agent (paper section 5.2,
 * eq. 11): every T the router computes p = (R - C) / R from the bytes offered
 * to its PELS queue and numbers the sample with its epoch z. The agent posts
 * it to the server (POST /api/router-feedback), which steps every viewer's
 * controllers with it when the server runs with FEEDBACK=router.
 */
import { z } from 'zod';

export const routerFeedbackSchema = z.object({
  routerId: z.string().min(1).max(64),
  epoch: z.number().int().nonnegative(),
  /** (R - C) / R: negative below capacity (MKC ramps up exponentially), at most 1. */
  p: z.number().min(-1).max(1),
  /** Length of the sampling interval T, ms. */
  intervalMs: z.number().positive().max(10_000),
  offeredKbps: z.number().nonnegative().max(1e7).optional(),
  capacityKbps: z.number().positive().max(1e7).optional(),
}).strict();

export type RouterFeedback = z.infer<typeof routerFeedbackSchema>;

export interface RouterFeedbackState extends RouterFeedback {
  /** When the server received it, ISO 8601. */
  receivedAt: string;
}
