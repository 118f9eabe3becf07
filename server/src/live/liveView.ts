/** What the operator is shown of live streams: a new key with the URLs to publish to, and a stream's publishing side. */
import type { IncomingMessage } from 'node:http';
import type { LiveInfo, PublishUrls, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import type { PublishSettings } from '../config';
import type { LiveSettings } from '../store/operatorState';
import type { Stream } from '../streams/stream';
import { RTMP_APP } from './rtmp/rtmpSession';
import { generateStreamKey } from './streamKeys';

type Listeners = Pick<PublishSettings, 'rtmp' | 'srt'>;

/** A fresh key and where to publish with it, named by the host the operator reached the server at. */
export function newKey(req: IncomingMessage, publish: Listeners): StreamKeyAnswer {
  const key = generateStreamKey();
  return { key, publish: publishUrls(req.headers.host, key, publish) };
}

export function publishUrls(hostHeader: string | undefined, key: string, publish: Listeners): PublishUrls {
  let host = 'localhost';
  try {
    if (hostHeader) host = new URL(`http://${hostHeader}`).hostname || host;
  } catch {
    // A malformed Host header: the URLs name localhost.
  }
  return {
    ...(publish.rtmp ? { rtmp: `rtmp://${host}:${publish.rtmp.port}/${RTMP_APP}/${key}` } : {}),
    ...(publish.srt ? { srt: `srt://${host}:${publish.srt.port}?streamid=${key}` } : {}),
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
