import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { pino } from 'pino';
import { CachingUtf8Encoder, MAX_CACHED_STRINGS, SendNotification, useFastChannelEncoding, type ChannelBuilder } from './channelEncoding';
import { localMediaWorker } from './localMediaWorker';

const require = createRequire(import.meta.url);
/** The FlatBuffers mediasoup builds its channel messages with. */
const { Builder } = createRequire(require.resolve('mediasoup'))('flatbuffers') as { Builder: new (size: number) => ChannelBuilder & FinishedBuilder };
interface FinishedBuilder {
  createString(s: string): number;
  startObject(n: number): void;
  addFieldOffset(slot: number, offset: number, dflt: number): void;
  endObject(): number;
  finishSizePrefixed(root: number): void;
  asUint8Array(): Uint8Array;
  clear(): void;
}

/** A message as Producer.send and the channel build it: the packet's vector, then the producer's id, in one table. */
function message(b: ChannelBuilder & FinishedBuilder, createDataVector: typeof SendNotification.createDataVector, packet: Uint8Array, id: string): Uint8Array {
  const data = createDataVector(b, packet);
  const handler = b.createString(id);
  b.startObject(2);
  b.addFieldOffset(0, data, 0);
  b.addFieldOffset(1, handler, 0);
  b.finishSizePrefixed(b.endObject());
  const out = new Uint8Array(b.asUint8Array());
  b.clear();
  return out;
}

test("the fast encoding writes mediasoup's channel messages byte for byte as the generated code does", () => {
  const generated = SendNotification.createDataVector;
  useFastChannelEncoding();
  const fast = SendNotification.createDataVector;
  assert.notEqual(fast, generated, 'installed');
  useFastChannelEncoding();
  assert.equal(SendNotification.createDataVector, fast, 'idempotent');
  const [a, b] = [new Builder(1024), new Builder(1024)];
  // Sizes around the builder's growth and alignment; ids repeat, as a producer's does packet after packet.
  for (const size of [0, 1, 3, 12, 1000, 1200, 5000]) {
    for (const id of ['producer-1', 'producer-1', 'prodücer-2']) {
      const packet = randomBytes(size);
      assert.deepEqual(message(a, fast, packet, id), message(b, generated, packet, id), `${size} bytes, id ${id}`);
    }
  }
  SendNotification.createDataVector = generated;
});

test('with the fast encoding, a packet sent into a producer reaches its consumer unchanged', { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const router = await media.createRouter();
  const [into, out] = [await router.createDirectTransport(), await router.createDirectTransport()];
  const producer = await into.produce({
    kind: 'video',
    rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: 101, clockRate: 90000 }], encodings: [{ ssrc: 1234 }] },
  });
  const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
  const received = new Promise<Buffer>((resolve) => consumer.on('rtp', resolve));
  // A VP8 keyframe's start (descriptor S bit; frame tag, start code, 160x90): the consumer forwards from a keyframe on.
  const payload = Buffer.concat([Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]), randomBytes(1100)]);
  // RTP version 2, payload type 101, marker; sequence 1, timestamp 90000, SSRC 1234.
  const header = Buffer.from([0x80, 0xe5, 0, 1, 0, 1, 0x5f, 0x90, 0, 0, 0x04, 0xd2]);
  producer.send(Buffer.concat([header, payload]));
  const packet = await received;
  assert.deepEqual(packet.subarray(packet.length - payload.length), payload);
});

test("only a packet's producer id is kept: a join's strings are encoded and let go, and the kept ids are bounded", (t) => {
  const generated = SendNotification.createDataVector;
  useFastChannelEncoding();
  t.after(() => (SendNotification.createDataVector = generated));
  const b = new Builder(1024);
  // Packets of two producers, and between them a join's request strings, as the channel builds both.
  for (let i = 0; i < 100; i++) {
    message(b, SendNotification.createDataVector, randomBytes(100), i % 2 ? 'producer-1' : 'prodücer-2');
    b.createString(`transport-${i}`);
    b.createString(`ice-password-${i}`);
    b.clear();
  }
  const enc = b.text_encoder as CachingUtf8Encoder;
  assert.ok(enc instanceof CachingUtf8Encoder);
  assert.equal(enc.size, 2, 'the two producer ids, none of the join strings');
  enc.hotNext = true;
  const hot = enc.encode('producer-1');
  enc.hotNext = true;
  assert.equal(enc.encode('producer-1'), hot, 'a hot id is encoded once');
  assert.deepEqual(enc.encode('prodücer-2'), new TextEncoder().encode('prodücer-2'));
  // More producers than the bound: the kept ids never pass it.
  for (let i = 0; i < 3 * MAX_CACHED_STRINGS; i++) {
    enc.hotNext = true;
    enc.encode(`producer-${i}`);
  }
  assert.ok(enc.size <= MAX_CACHED_STRINGS, `${enc.size} kept`);
});
