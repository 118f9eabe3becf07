/**
 * What the operator did that must outlive the process: the streams added and
 * removed, live streams' key hashes and takeover choice, the controller gains set, and the token generated when
 * OPERATOR_TOKEN is not set. Pure: the changes are functions from one state
 * to the next; stateStore.ts keeps them on disk, streamsAtStart.ts starts
 * from them.
 */
import { z } from 'zod';
import { addStreamSchema, controllerGainsSchema, type ControlUpdate } from '@pels/shared/protocol/operator';
import { TOKEN_PATTERN } from '../config';
import { KEY_HASH_PATTERN } from '../live/streamKeys';

/** SOURCE's stream. */
export const DEFAULT_STREAM = { id: 'default', name: 'Default stream' } as const;

/** A stream as added with POST /api/streams: the same rules, with the id and name it was given. */
const storedStreamSchema = addStreamSchema.required();
export type StoredStream = z.infer<typeof storedStreamSchema>;

/** A live stream's publishing settings: its key's SHA-256 (null: revoked, nobody may publish) and whether a new publisher takes over from one publishing. */
const liveSettingsSchema = z.object({ keySha256: z.string().regex(KEY_HASH_PATTERN).nullable(), takeover: z.boolean() }).strict();
export type LiveSettings = z.infer<typeof liveSettingsSchema>;

export const operatorStateSchema = z
  .object({
    /** Streams the operator added, in the order added. */
    streams: z.array(storedStreamSchema),
    /** The operator removed the `default` stream SOURCE defines. */
    defaultRemoved: z.boolean(),
    /** The gains set with PUT /api/control; each overrides the environment's value. */
    gains: controllerGainsSchema.partial().strict(),
    /** Generated at the first start without OPERATOR_TOKEN, used by later ones. */
    operatorToken: z.string().regex(TOKEN_PATTERN, 'a token of at least 16 printable characters').optional(),
    /** By stream id: each live stream's (source `live:`) publishing settings; a file from before live streams has none. */
    live: z.record(z.string(), liveSettingsSchema).default({}),
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    s.streams.forEach((stream, i) => {
      if (ids.has(stream.id)) ctx.addIssue({ code: 'custom', path: ['streams', i, 'id'], message: `stream id "${stream.id}" appears twice` });
      if (stream.id === DEFAULT_STREAM.id && !s.defaultRemoved) {
        ctx.addIssue({ code: 'custom', path: ['streams', i, 'id'], message: `"${DEFAULT_STREAM.id}" is SOURCE's stream unless it was removed` });
      }
      ids.add(stream.id);
    });
    const liveIds = new Set(s.streams.filter((x) => x.source.trim() === 'live:').map((x) => x.id));
    for (const id of Object.keys(s.live)) {
      if (!liveIds.has(id)) ctx.addIssue({ code: 'custom', path: ['live', id], message: `"${id}" is not a live stream (source "live:")` });
    }
  });
export type OperatorState = z.infer<typeof operatorStateSchema>;

export const EMPTY_STATE: OperatorState = { streams: [], defaultRemoved: false, gains: {}, live: {} };

export function withStreamAdded(s: OperatorState, stream: StoredStream): OperatorState {
  return { ...s, streams: [...s.streams, stream] };
}

/** The `default` stream, unless the operator added one by that id after removing SOURCE's, stays removed. */
export function withStreamRemoved(s: OperatorState, id: string): OperatorState {
  if (s.streams.some((x) => x.id === id)) {
    const { [id]: _gone, ...live } = s.live;
    return { ...s, streams: s.streams.filter((x) => x.id !== id), live };
  }
  if (id === DEFAULT_STREAM.id) return { ...s, defaultRemoved: true };
  return s;
}

export function withGains(s: OperatorState, u: ControlUpdate): OperatorState {
  return { ...s, gains: { ...s.gains, ...u } };
}

export function withOperatorToken(s: OperatorState, operatorToken: string): OperatorState {
  return { ...s, operatorToken };
}

/** A live stream's new settings (a new key hash, a revoked key, a takeover choice). */
export function withLiveSettings(s: OperatorState, id: string, settings: LiveSettings): OperatorState {
  return { ...s, live: { ...s.live, [id]: settings } };
}
