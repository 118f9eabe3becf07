/**
 * Who may publish: each attempt (RTMP, SRT, WHIP) is checked here before any of its
 * media is read. An address that showed too many wrong keys is locked out (right
 * key or wrong) until its allowance refills, then one over its attempt rate is
 * refused, then a key that matches no live stream, then a second publisher on a
 * stream that does not let a new one take over. Addresses are counted as the
 * viewer limits count them (IPv4 address, IPv6 /64). Every outcome is counted (metrics).
 */
import type { AddressRateLimit } from '../limits/addressRateLimit';
import type { LiveSettings } from '../store/operatorState';
import { PUBLISH_PROTOCOLS, type LiveTarget, type PublishProtocol } from './publisher';
import { hashStreamKey, STREAM_KEY_PATTERN } from './streamKeys';

export const REFUSAL_REASONS = ['locked_out', 'rate_limited', 'bad_key', 'busy', 'malformed'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** A refused attempt; the message may go to the publisher (it names no stream but the one its key matched). */
export class PublishRefused extends Error {
  override name = 'PublishRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
    /** For `locked_out` and `rate_limited`: whole seconds until the address may try again. */
    readonly retryAfterS = 0,
  ) {
    super(message);
  }
}

export interface PublishGateDeps {
  /** The live streams' settings by id, as saved. */
  live: () => Readonly<Record<string, LiveSettings>>;
  /** A stream by id, if the server has it. */
  stream: (id: string) => LiveTarget | undefined;
  /** Attempts per address, any key (PUBLISH_ATTEMPTS_PER_MINUTE): keeps a reconnect loop from starting an FFmpeg per attempt. */
  attempts: AddressRateLimit;
  /** Wrong keys per address (PUBLISH_KEY_FAILURES_PER_MINUTE): only failures are charged. */
  keyFailures: AddressRateLimit;
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
    const refuse = (reason: RefusalReason, message: string, retryAfterS = 0): never => {
      this.tally.refused[protocol][reason]++;
      throw new PublishRefused(reason, message, retryAfterS);
    };
    const { attempts, keyFailures } = this.d;
    if (!keyFailures.allows(address)) {
      const s = keyFailures.retryAfterS(address);
      refuse('locked_out', `too many wrong stream keys from this address: try again in ${s} s`, s);
    }
    if (!attempts.take(address)) {
      const s = attempts.retryAfterS(address);
      refuse('rate_limited', `too many publish attempts from this address: try again in ${s} s`, s);
    }
    const hash = STREAM_KEY_PATTERN.test(key) ? hashStreamKey(key) : undefined;
    const live = this.d.live();
    const id = hash === undefined ? undefined : Object.keys(live).find((k) => live[k]!.keySha256 === hash);
    const stream = id === undefined ? undefined : this.d.stream(id);
    if (!stream || !stream.isLive || (streamId !== undefined && stream.id !== streamId)) {
      keyFailures.take(address);
      return refuse('bad_key', 'unknown stream key');
    }
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
