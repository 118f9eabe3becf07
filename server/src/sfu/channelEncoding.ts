/**
 * mediasoup's channel encodes every packet node sends to a worker
 * (`producer.send`) as a FlatBuffers message. Its generated code copies the
 * packet into the message one byte at a time and UTF-8-encodes the producer's
 * id afresh for every packet: with hundreds of viewers these were a sixth of
 * node's time. `useFastChannelEncoding` replaces the two with what writes the
 * same bytes at once: FlatBuffers' own bulk byte-vector copy, and the ids'
 * UTF-8 kept (there are a few per viewer). The messages stay byte for byte what
 * they were. The generated module is not among mediasoup's exports, so it is
 * loaded by its file (the version is pinned, server/package.json).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What of a FlatBuffers Builder the replacement uses. */
export interface ChannelBuilder {
  createByteVector(v: Uint8Array): number;
  text_encoder: { encode(s: string): Uint8Array };
}

type CreateDataVector = (builder: ChannelBuilder, data: Uint8Array) => number;

const require = createRequire(import.meta.url);
/** The class mediasoup's Producer.send uses, as it loaded it (one module instance). */
export const SendNotification = require(join(dirname(require.resolve('mediasoup')), 'fbs/producer/send-notification.js')).SendNotification as {
  createDataVector: CreateDataVector;
};

/**
 * The builder encodes every string of every message with its text encoder:
 * each join's (transport and consumer ids, ICE and DTLS parameters) once, a
 * packet's producer id per packet. Only the string right after a packet's
 * vector (`hotNext`) is kept: a producer's id, a few per viewer. A join's
 * strings, kept too, made the cache a saw of up to a megabyte, filling with
 * strings never asked for again and emptied when full.
 */
export const MAX_CACHED_STRINGS = 4096;

export class CachingUtf8Encoder {
  private readonly encoder = new TextEncoder();
  private readonly cache = new Map<string, Uint8Array>();
  /** The next string is a packet's producer id. */
  hotNext = false;

  constructor(private readonly max = MAX_CACHED_STRINGS) {}

  get size(): number {
    return this.cache.size;
  }

  encode(s: string): Uint8Array {
    if (!this.hotNext) return this.encoder.encode(s);
    this.hotNext = false;
    let utf8 = this.cache.get(s);
    if (!utf8) {
      // More producers than the bound (or ids of producers gone): start again, the live ones come back at their next packet.
      if (this.cache.size >= this.max) this.cache.clear();
      utf8 = this.encoder.encode(s);
      this.cache.set(s, utf8);
    }
    return utf8;
  }
}

const fast: CreateDataVector = (builder, data) => {
  // The channel's one builder: the string it encodes after this vector is the packet's producer id (Channel.notify's handler id).
  const encoder = builder.text_encoder instanceof CachingUtf8Encoder ? builder.text_encoder : (builder.text_encoder = new CachingUtf8Encoder());
  encoder.hotNext = true;
  return builder.createByteVector(data);
};

/** Idempotent; for the whole process (every worker's channel). */
export function useFastChannelEncoding(): void {
  SendNotification.createDataVector = fast;
}
