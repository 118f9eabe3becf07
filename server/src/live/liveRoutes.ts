/**
 * The operator's live-stream actions (operator token): rotate a stream's key
 * (the new key is shown once; a publisher already sending goes on), revoke it
 * (the publisher is cut off and nobody may publish until a new key is made),
 * and let a new publisher take over from one sending, or not.
 */
import { setTakeoverSchema } from '@pels/shared/protocol/operator';
import type { PublishSettings } from '../config';
import { RequestError } from '../errors';
import { readJson, type Route } from '../http/httpServer';
import { parseBody, saved } from '../operator/operatorRoutes';
import { withLiveSettings, type LiveSettings } from '../store/operatorState';
import type { StateStore } from '../store/stateStore';
import type { Stream } from '../streams/stream';
import type { StreamRegistry } from '../streams/streamRegistry';
import { newKey } from './liveView';
import { hashStreamKey } from './streamKeys';

export interface LiveRouteDeps {
  streams: StreamRegistry;
  store: Pick<StateStore, 'change' | 'saved' | 'state'>;
  publish: Pick<PublishSettings, 'rtmp' | 'srt' | 'whip'>;
}

export function liveRoutes(d: LiveRouteDeps): Route[] {
  const liveStream = (id: string): { stream: Stream; settings: LiveSettings } => {
    const stream = d.streams.get(id);
    const settings = d.store.state.live[id];
    if (!stream.isLive || !settings) throw new RequestError('invalid_state', `stream "${id}" is not a live stream (source "live:")`);
    return { stream, settings };
  };
  return [
    {
      method: 'POST',
      path: '/api/streams/:id/key',
      handler: async (req, { id }) => {
        const { settings } = liveStream(id!);
        const answer = newKey(req, d.publish, id!);
        d.store.change((s) => withLiveSettings(s, id!, { ...settings, keySha256: hashStreamKey(answer.key) }));
        await saved(d.store);
        return answer;
      },
    },
    {
      method: 'DELETE',
      path: '/api/streams/:id/key',
      handler: async (_req, { id }) => {
        const { stream, settings } = liveStream(id!);
        d.store.change((s) => withLiveSettings(s, id!, { ...settings, keySha256: null }));
        stream.dropPublisher('the stream key was revoked');
        await saved(d.store);
        return { ok: true };
      },
    },
    {
      method: 'PUT',
      path: '/api/streams/:id/takeover',
      handler: async (req, { id }) => {
        const { allow } = parseBody(setTakeoverSchema, await readJson(req));
        const { settings } = liveStream(id!);
        d.store.change((s) => withLiveSettings(s, id!, { ...settings, takeover: allow }));
        await saved(d.store);
        return { takeover: allow };
      },
    },
  ];
}
