/** What the operator is shown of live streams: a new key with the URLs to publish to, and a stream's publishing side. */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { LiveInfo, PublishUrls, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import type { PublishSettings } from '../config';
import type { LiveSettings } from '../store/operatorState';
import type { Stream } from '../streams/stream';
import { RTMP_APP } from './rtmp/rtmpSession';
import { generateStreamKey } from './streamKeys';
import { WHIP_PATH } from './whip/whipRoutes';

type Listeners = Pick<PublishSettings, 'rtmp' | 'srt' | 'whip'>;

/** A fresh key for stream `id` and where to publish with it, named by the host the operator reached the server at. */
export function newKey(req: IncomingMessage, publish: Listeners, id: string): StreamKeyAnswer {
  const key = generateStreamKey();
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  return { key, publish: publishUrls(req.headers.host, key, publish, { id, scheme }) };
}

export function publishUrls(hostHeader: string | undefined, key: string, publish: Listeners, stream: { id: string; scheme: 'http' | 'https' }): PublishUrls {
  let host = 'localhost';
  let origin = `${stream.scheme}://localhost`;
  try {
    if (hostHeader) {
      const url = new URL(`${stream.scheme}://${hostHeader}`);
      host = url.hostname || host;
      origin = url.origin;
    }
  } catch {
    // A malformed Host header: the URLs name localhost.
  }
  return {
    ...(publish.rtmp ? { rtmp: `rtmp://${host}:${publish.rtmp.port}/${RTMP_APP}/${key}` } : {}),
    ...(publish.srt ? { srt: `srt://${host}:${publish.srt.port}?streamid=${key}` } : {}),
    ...(publish.whip ? { whip: `${origin}${WHIP_PATH}/${encodeURIComponent(stream.id)}` } : {}),
  };
}

/** A live stream's publishing side for the operator; undefined for a stream that reads its own source. */
export function liveInfo(stream: Stream, settings: LiveSettings | undefined): LiveInfo | undefined {
  if (!stream.isLive || !settings) return undefined;
  const p = stream.publisher;
  return {
    keySet: settings.keySha256 !== null,
    takeover: settings.takeover,
    publisher: p ? { protocol: p.protocol, address: p.address, since: new Date(p.since).toISOString() } : null,
  };
}
