import type { Readable } from 'node:stream';
import type { ProbedAudio, PublishedInput } from '../ingest/sourceSpec';
import type { MediaArrivals } from './mediaArrivals';

export const PUBLISH_PROTOCOLS = ['rtmp', 'srt', 'whip'] as const;
export type PublishProtocol = (typeof PUBLISH_PROTOCOLS)[number];

/** One publisher's connection to a live stream, once its key was accepted. */
export interface Publisher {
  protocol: PublishProtocol;
  /** The address it connects from, for the operator. */
  address: string;
  /** The container its media comes in, as FFmpeg reads it. */
  input: PublishedInput;
  /** Its sound as it announced it (codec, channels), or null: it sends none. Any but Opus is decoded and encoded as Opus. */
  audio: ProbedAudio | null;
  /** Its media bytes; the stream closes when the publisher goes (and the ingest's run ends with it). */
  media: Readable;
  /** When its video frames arrived, by its own timestamps: the entry time of each frame the ingest makes of them. */
  arrivals: MediaArrivals;
  /** When it was accepted (ms since the epoch). */
  since: number;
  /** Ends the publisher's connection (taken over, key revoked, the ingest failed); a second call does nothing. */
  close(reason: string): void;
  /**
   * Its media again, for a new ingest run after one failed mid-stream (FFmpeg or an encoder ended): a
   * stream of its own from the container's header and the publisher's next keyframe, which `media` and
   * `arrivals` are from then on. The connection stays. Absent: the protocol cannot, and a failed run
   * ends the publisher. RTMP and SRT cannot ask for a keyframe: theirs waits for the publisher's next.
   */
  resumeMedia?(): void;
}

/** Where an accepted publisher's media goes: a live stream. */
export interface PublishTarget {
  readonly id: string;
  attachPublisher(p: Publisher): void;
}

/** A stream a publisher may be admitted to: live or not, and whether one already publishes. */
export interface LiveTarget extends PublishTarget {
  readonly isLive: boolean;
  readonly publisher: Publisher | null;
}
