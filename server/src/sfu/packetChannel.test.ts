import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { localMediaWorkers } from './localMediaWorker';
import { PacketChannel, sendNotification } from './packetChannel';

/** A socket that keeps what is written to it. */
function recorder(): { socket: Writable; written: Buffer[] } {
  const written: Buffer[] = [];
  const socket = new Writable({
    write(chunk: Buffer, _enc, done) {
      written.push(Buffer.from(chunk));
      done();
    },
  });
  return { socket, written };
}

test("a packet's message is byte for byte the one mediasoup builds, at every length's alignment", () => {
  for (const id of ['0c3f8a2e-5b1d-4e7a-9f00-123456789abc', 'p', 'prodücer-ü']) {
    const { socket, written } = recorder();
    const channel = new PacketChannel(id, socket);
    const sizes = [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 1000, 1001, 1002, 1003, 1200];
    for (const size of sizes) channel.send(randomBytes(size));
    assert.equal(written.length, sizes.length);
    written.forEach((message, k) => {
      const packet = message.subarray(message.length - (-sizes[k]! & 3) - sizes[k]!, message.length - (-sizes[k]! & 3));
      assert.deepEqual(message, Buffer.from(sendNotification(id, packet)), `${sizes[k]} bytes, id ${id}`);
    });
  }
});

test("what a packet channel writes is what producer.send writes to the worker's channel, and the packets reach the consumer", { timeout: 20_000 }, async (t) => {
  const { pool } = await localMediaWorkers(pino({ level: 'silent' }), 1);
  t.after(() => pool.close());
  const router = await pool.createRouter(0);
  const [into, out] = [await router.createDirectTransport(), await router.createDirectTransport()];
  const producer = await into.produce({
    kind: 'video',
    rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: 101, clockRate: 90000 }], encodings: [{ ssrc: 1234 }] },
  });
  const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
  const received: Buffer[] = [];
  const two = new Promise<void>((resolve) => consumer.on('rtp', (p) => received.push(p) === 2 && resolve()));
  // A VP8 keyframe's start (descriptor S bit; frame tag, start code, 160x90): the consumer forwards from a keyframe on.
  const payload = Buffer.concat([Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]), randomBytes(1001)]);
  // RTP version 2, payload type 101, marker; timestamp 90000, SSRC 1234; sequence numbers 1 and 2.
  const packet = (seq: number) => Buffer.concat([Buffer.from([0x80, 0xe5, 0, seq, 0, 1, 0x5f, 0x90, 0, 0, 0x04, 0xd2]), payload]);
  const socket = pool.channel(0);
  const write = socket.write;
  const byMediasoup: Uint8Array[] = [];
  socket.write = ((chunk: Uint8Array, encoding: BufferEncoding) => (byMediasoup.push(Uint8Array.from(chunk)), write.call(socket, chunk, encoding))) as typeof write;
  // Every alignment of the packet's length (not sent on: only the first is a keyframe's start).
  const lengths = [0, 1, 2, 3].map((extra) => packet(1).subarray(0, packet(1).length - extra));
  for (const p of lengths) producer.send(p);
  socket.write = write;
  const ours = recorder();
  for (const p of lengths) new PacketChannel(producer.id, ours.socket).send(p);
  assert.equal(byMediasoup.length, lengths.length);
  assert.deepEqual(byMediasoup.map((m) => Buffer.from(m)), ours.written);
  // And through the worker's own channel: the packet arrives after mediasoup's.
  new PacketChannel(producer.id, socket).send(packet(2));
  await two;
  assert.deepEqual(received.map((p) => p.subarray(p.length - payload.length)), [payload, payload]);
});
