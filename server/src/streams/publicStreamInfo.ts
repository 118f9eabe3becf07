import type { StreamInfo } from '@pels/shared/protocol/signaling';
import type { Stream } from './stream';

/** What a player (anyone, no token) is told about a stream. */
export function publicStreamInfo(stream: Stream): StreamInfo {
  return stream.info();
}
