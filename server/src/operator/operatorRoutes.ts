import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { addStreamRequestSchema, controlUpdateSchema, setControllerSchema, setModeSchema } from '@pels/shared/protocol/operator';
import { RequestError } from '../errors';
import { readJson, type Route } from '../http/httpServer';
import { resolveSource } from '../ingest/mediaFiles';
import { checkVisible, SourceError } from '../ingest/sourcePolicy';
import type { SourceSpec } from '../ingest/sourceSpec';
import { StoreError } from '../store/stateCodec';
import type { PublishSettings } from '../config';
import { newKey } from '../live/liveView';
import { hashStreamKey } from '../live/streamKeys';
import { withGains, withLiveSettings, withStreamAdded, withStreamRemoved } from '../store/operatorState';
import type { StateStore } from '../store/stateStore';
import type { Stream } from '../streams/stream';
import type { OperatorChange } from '../cluster/clusterRegistry';
import type { ViewerSession } from '../viewer/viewerSession';
import { operatorStream, takeSnapshot, type SnapshotSources } from './snapshot';

export interface NewStream {
  id: string;
  name: string;
  source: SourceSpec;
}

export interface OperatorRouteDeps extends SnapshotSources {
  /** Makes (does not start or register) a stream; throws a RequestError when the server cannot yet. */
  createStream: (s: NewStream) => Stream;
  /** Where file sources must be (MEDIA_DIR). */
  mediaDirs: readonly string[];
  /** MAX_STREAMS: each stream runs FFmpeg and an encoder per rendition. */
  maxStreams: number;
  /** Keeps the operator's changes across restarts: each is on disk before its answer. */
  store: Pick<StateStore, 'change' | 'saved' | 'state'>;
  /** The publish listeners, to name where a new live stream's publisher sends. */
  publish: Pick<PublishSettings, 'rtmp' | 'srt' | 'whip'>;
  /** Hands a change every node applies to the cluster's registry (absent: no registry). */
  share?: (change: OperatorChange) => void;
}

/**
 * The operator's actions and views. Every route here needs the operator token:
 * main.ts passes them through OperatorAuth.guard.
 */
export function operatorRoutes(d: OperatorRouteDeps): Route[] {
  return [
    { method: 'GET', path: '/api/operator/snapshot', handler: () => takeSnapshot(d) },
    {
      method: 'POST',
      path: '/api/streams',
      handler: async (req) => {
        const body = parseBody(addStreamRequestSchema, await readJson(req));
        const id = body.id ?? `s-${randomUUID().slice(0, 8)}`;
        let source;
        try {
          // Refused here: anything outside the source policy, and a missing file (the operator's typo). A URL or graph FFmpeg cannot open shows as a failed stream.
          source = await resolveSource(body.source, d.mediaDirs);
          if (body.name !== undefined) checkVisible(body.name, 'name');
        } catch (err) {
          if (err instanceof SourceError) throw new RequestError('bad_request', err.message);
          throw err;
        }
        if (d.streams.has(id)) throw new RequestError('invalid_state', `stream "${id}" already exists`);
        if (d.streams.all().length >= d.maxStreams) throw new RequestError('invalid_state', `the server runs its maximum of ${d.maxStreams} streams (MAX_STREAMS): remove one first`);
        const name = body.name ?? id;
        const stream = d.createStream({ id, name, source });
        d.streams.add(stream);
        // Saved as given: the next start puts it through the source policy again.
        d.store.change((s) => withStreamAdded(s, { id, name, source: body.source }));
        // A live stream's key is shown in this answer only: the server keeps its hash.
        const key = source.kind === 'live' ? newKey(req, d.publish, id) : undefined;
        if (key) d.store.change((s) => withLiveSettings(s, id, { keySha256: hashStreamKey(key.key), takeover: body.takeover ?? false }));
        try {
          await stream.start();
        } catch (err) {
          d.streams.remove(id);
          d.store.change((s) => withStreamRemoved(s, id));
          throw new RequestError('unavailable', `cannot start stream "${id}": ${err instanceof Error ? err.message : String(err)}`);
        }
        await saved(d.store);
        return { stream: operatorStream(stream, d.store.state.live[id]), ...key };
      },
    },
    {
      method: 'DELETE',
      path: '/api/streams/:id',
      handler: async (_req, { id }) => {
        d.streams.remove(id!);
        d.store.change((s) => withStreamRemoved(s, id!));
        await saved(d.store);
        return { ok: true };
      },
    },
    {
      method: 'DELETE',
      path: '/api/viewers/:id',
      handler: (_req, { id }) => {
        findViewer(d, id!).close('disconnected by the operator', { rejoin: false });
        return { ok: true };
      },
    },
    {
      method: 'POST',
      path: '/api/streams/:id/controller',
      handler: async (req, { id }) => {
        const { controller } = parseBody(setControllerSchema, await readJson(req));
        const stream = d.streams.get(id!);
        stream.setController(controller);
        d.share?.({ kind: 'controller', stream: stream.id, controller });
        return { stream: operatorStream(stream, d.store.state.live[stream.id]) };
      },
    },
    {
      method: 'POST',
      path: '/api/viewers/:id/controller',
      handler: async (req, { id }) => {
        const { controller } = parseBody(setControllerSchema, await readJson(req));
        const viewer = findViewer(d, id!);
        viewer.setController(controller);
        return { viewer: viewer.state() };
      },
    },
    {
      method: 'POST',
      path: '/api/viewers/:id/mode',
      handler: async (req, { id }) => {
        const { mode } = parseBody(setModeSchema, await readJson(req));
        const viewer = findViewer(d, id!);
        await viewer.setMode(mode);
        return { viewer: viewer.state() };
      },
    },
    { method: 'GET', path: '/api/control', handler: () => d.control.info() },
    {
      method: 'PUT',
      path: '/api/control',
      handler: async (req) => {
        const update = parseBody(controlUpdateSchema, await readJson(req));
        const info = d.control.update(update);
        d.store.change((s) => withGains(s, update));
        d.share?.({ kind: 'gains', gains: info.gains });
        await saved(d.store);
        return info;
      },
    },
  ];
}

/** A change is answered once it is on disk; one that cannot be written stays in effect until the server stops, and the answer says so. */
export async function saved(store: Pick<StateStore, 'saved'>): Promise<void> {
  try {
    await store.saved();
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    throw new RequestError('unavailable', `the change is in effect but a restart would undo it: ${err.message}`);
  }
}

export function parseBody<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new RequestError('bad_request', `invalid request${issue?.path.length ? ` at ${issue.path.join('.')}` : ''}: ${issue?.message ?? 'unknown'}`);
}

function findViewer(d: OperatorRouteDeps, id: string): ViewerSession {
  let found: ViewerSession | undefined;
  d.streams.forEachViewer((v) => {
    if (v.id === id) found = v;
  });
  if (!found) throw new RequestError('not_found', `no viewer with id "${id}"`);
  return found;
}
