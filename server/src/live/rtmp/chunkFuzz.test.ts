/**
 * RTMP's chunk reader and AMF0 decoder under fuzzed input: random bytes in
 * random pieces, valid messages with bytes flipped, and a peer that opens
 * every chunk stream with a large message it never finishes. Whatever comes
 * in: messages, or RtmpError / Amf0Error, never another exception, and what
 * the reader holds stays bounded. Seeded: a failure names its seed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { Amf0Error, decodeAmf0, encodeAmf0 } from './amf0';
import { ChunkReader, encodeMessage, MAX_CHUNK_STREAMS, MAX_MESSAGE_BYTES, MSG, RtmpError, uint32 } from './chunkStream';

type Rand = () => number;
const bytes = (r: Rand, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));

/** Feeds `input` in random pieces; true: it ended in an RtmpError or Amf0Error, false: read through. */
function feed(r: Rand, input: Buffer, what: string): boolean {
  const reader = new ChunkReader();
  try {
    for (let at = 0; at < input.length; ) {
      const n = 1 + Math.floor(r() * 300);
      for (const m of reader.push(input.subarray(at, at + n))) {
        assert.ok(m.payload.length <= MAX_MESSAGE_BYTES, what);
        if (m.type === MSG.amf0Command || m.type === MSG.amf0Data) decodeAmf0(m.payload);
      }
      at += n;
    }
    return false;
  } catch (err) {
    assert.ok(err instanceof RtmpError || err instanceof Amf0Error, `${what}: ${(err as Error).stack}`);
    assert.ok(err.message.length <= 200, `${what}: ${err.message}`);
    return true;
  }
}

/** What a publisher sends after the handshake: connect, createStream, publish, metadata and a few media messages. */
function session(r: Rand): Buffer {
  const command = (...v: Parameters<typeof encodeAmf0>) => encodeMessage(3, { type: MSG.amf0Command, streamId: 0, timestamp: 0, payload: encodeAmf0(...v) }, 128);
  return Buffer.concat([
    encodeMessage(2, { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: uint32(4096) }, 128),
    command('connect', 1, { app: 'live', tcUrl: 'rtmp://127.0.0.1/live', flashVer: 'FMLE/3.0' }),
    ...[0, 1, 2].map(() => encodeMessage(4, { type: MSG.video, streamId: 1, timestamp: Math.floor(r() * 1e6), payload: bytes(r, Math.floor(r() * 10_000)) }, 4096)),
    encodeMessage(5, { type: MSG.amf0Data, streamId: 1, timestamp: 0, payload: encodeAmf0('@setDataFrame', 'onMetaData', { width: 1280, height: 720, audiocodecid: 10 }) }, 4096),
  ]);
}

test('2000 random byte streams, in random pieces: messages or a protocol error, nothing else', () => {
  let errors = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const r = mulberry32(seed);
    if (feed(r, bytes(r, Math.floor(r() * 4000)), `seed ${seed}`)) errors++;
  }
  assert.ok(errors > 500, `${errors} of 2000 random streams refused`);
});

test('2000 valid sessions with bytes flipped, cut or repeated: messages or a protocol error, nothing else', () => {
  assert.equal(feed(mulberry32(0), session(mulberry32(0)), 'unmutated'), false);
  for (let seed = 1; seed <= 2000; seed++) {
    const r = mulberry32(seed);
    const input = session(r);
    for (let n = 1 + Math.floor(r() * 6); n > 0; n--) input[Math.floor(r() * input.length)] = Math.floor(r() * 256);
    const cut = r() < 0.3 ? input.subarray(0, Math.floor(r() * input.length)) : input;
    feed(r, r() < 0.2 ? Buffer.concat([cut, cut]) : cut, `seed ${seed}`);
  }
});

test('2000 random AMF0 payloads (and hostile counts, lengths, nesting): values or an Amf0Error', () => {
  const hostile = [
    Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff]),
    Buffer.from([0x0c, 0xff, 0xff, 0xff, 0xff, 0x41]),
    Buffer.from([0x02, 0xff, 0xff]),
    Buffer.alloc(100_000, 0x03),
    Buffer.concat([Buffer.alloc(50_000, 0x0a).map((_, i) => (i % 5 === 0 ? 0x0a : i % 5 === 4 ? 1 : 0))]),
    Buffer.from([0x08, 0, 0, 0, 1, 0, 1, 0x41]),
    Buffer.from([0x0b, 0, 0]),
  ];
  for (const h of hostile) assert.throws(() => decodeAmf0(h), Amf0Error);
  for (let seed = 1; seed <= 2000; seed++) {
    const r = mulberry32(seed);
    try {
      decodeAmf0(bytes(r, Math.floor(r() * 200)));
    } catch (err) {
      assert.ok(err instanceof Amf0Error, `seed ${seed}: ${(err as Error).stack}`);
    }
  }
});

test('a peer that starts a large message on every chunk stream and finishes none is refused before the reader holds more than one message\'s bytes', () => {
  const reader = new ChunkReader();
  const part = 1024 * 1024;
  reader.push(encodeMessage(2, { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: uint32(part) }, 128));
  let held = 0;
  assert.throws(() => {
    for (let csid = 3; csid < 3 + MAX_CHUNK_STREAMS; csid++) {
      // A type-0 header announcing MAX_MESSAGE_BYTES, then its first chunk (a megabyte); the rest never comes.
      const header = Buffer.alloc(12);
      header[0] = csid;
      header.writeUIntBE(MAX_MESSAGE_BYTES, 4, 3);
      header[7] = MSG.video;
      reader.push(Buffer.concat([header, Buffer.alloc(part)]));
      held += part;
    }
  }, (err: unknown) => err instanceof RtmpError && /held|unfinished/.test(err.message));
  assert.ok(held <= MAX_MESSAGE_BYTES + part, `${held / part} MiB held before the refusal`);
});
