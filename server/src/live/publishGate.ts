/**
 * Who may publish: each attempt (RTMP, SRT, WHIP) is checked here before any of its
 * media is read. An address over its attempt rate is refused, then a key that
 * matches no live stream, then a second publisher on a stream that does not
 * let a new one take over. Every outcome is counted (metrics).
 */
import type { LiveSettings } from '../store/operatorState';
import type { AttemptLimiter } from './attemptLimiter';
import { PUBLISH_PROTOCOLS, type LiveTarget, type PublishProtocol } from './publisher';
import { hashStreamKey, STREAM_KEY_PATTERN } from './streamKeys';

export const REFUSAL_REASONS = ['rate_limited', 'bad_key', 'busy', 'malformed'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** A refused attempt; the message may go to the publisher (it names no stream but the one its key matched). */
export class PublishRefused extends Error {
  override name = 'PublishRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface PublishGateDeps {
  /** The live streams' settings by id, as saved. */
  live: () => Readonly<Record<string, LiveSettings>>;
  /** A stream by id, if the server has it. */
  stream: (id: string) => LiveTarget | undefined;
  limiter: AttemptLimiter;
  now?: () => number;
}

export interface PublishCounts {
  accepted: Record<PublishProtocol, number>;
  refused: Record<PublishProtocol, Record<RefusalReason, number>>;
}

export class PublishGate {
  private readonly tally: PublishCounts = {
    accepted: Object.fromEntries(PUBLISH_PROTOCOLS.map((p) => [p, 0])) as PublishCounts['accepted'],
    refused: Object.fromEntries(PUBLISH_PROTOCOLS.map((p) => [p, Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0]))])) as PublishCounts['refused'],
  };

  constructor(private readonly d: PublishGateDeps) {}

  /** The live stream `key` publishes to (it must be `streamId` when the publisher names one, as WHIP's URL does); throws PublishRefused. */
  admit(protocol: PublishProtocol, address: string, key: string, streamId?: string): LiveTarget {
    const refuse = (reason: RefusalReason, message: string): never => {
      this.tally.refused[protocol][reason]++;
      throw new PublishRefused(reason, message);
    };
    if (!this.d.limiter.take(address, (this.d.now ?? Date.now)())) refuse('rate_limited', 'too many publish attempts from this address: try again in a minute');
    const hash = STREAM_KEY_PATTERN.test(key) ? hashStreamKey(key) : undefined;
    const live = this.d.live();
    const id = hash === undefined ? undefined : Object.keys(live).find((k) => live[k]!.keySha256 === hash);
    const stream = id === undefined ? undefined : this.d.stream(id);
    if (!stream || !stream.isLive || (streamId !== undefined && stream.id !== streamId)) return refuse('bad_key', 'unknown stream key');
    if (stream.publisher && !live[stream.id]!.takeover) refuse('busy', `stream "${stream.id}" already has a publisher`);
    this.tally.accepted[protocol]++;
    return stream;
  }

  /** A connection ended by a protocol error before or while publishing (bad handshake, malformed messages). */
  countMalformed(protocol: PublishProtocol): void {
    this.tally.refused[protocol].malformed++;
  }

  get counts(): PublishCounts {
    return this.tally;
  }
}
