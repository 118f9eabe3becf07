import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { types as ms } from 'mediasoup';
import { pino } from 'pino';
import { COLORS, type Color } from '@pels/shared/pels/color';
import { localMediaWorker } from './localMediaWorker';
import { noDrops } from './mediaWorker';
import { ChannelWriter, PacketChannel, sendNotification } from './packetChannel';

/** A writer that keeps each message. */
function recorder(): { writer: Pick<ChannelWriter, 'write'>; written: Buffer[] } {
  const written: Buffer[] = [];
  return { writer: { write: (message) => void written.push(message) }, written };
}

/** A one-packet VP8 keyframe (a consumer forwards from a keyframe on): descriptor S bit; frame tag, start code, 160x90. */
function keyframePacket(seq: number, ssrc: number, extra = 1001): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt8(0x80, 0);
  header.writeUInt8(0x80 | 101, 1);
  header.writeUInt16BE(seq, 2);
  header.writeUInt32BE(3000 * seq, 4);
  header.writeUInt32BE(ssrc, 8);
  return Buffer.concat([header, Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]), randomBytes(extra)]);
}

async function producerAndConsumer(router: ms.Router, ssrc: number): Promise<{ producer: ms.Producer; consumer: ms.Consumer }> {
  const [into, out] = [await router.createDirectTransport(), await router.createDirectTransport()];
  const producer = await into.produce({
    kind: 'video',
    rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: 101, clockRate: 90000 }], encodings: [{ ssrc }] },
  });
  const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
  return { producer, consumer };
}

test("a packet's message is byte for byte the one mediasoup builds, at every length's alignment", () => {
  for (const id of ['0c3f8a2e-5b1d-4e7a-9f00-123456789abc', 'p', 'prodücer-ü']) {
    const { writer, written } = recorder();
    const channel = new PacketChannel(id, 'green', writer);
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
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const { producer, consumer } = await producerAndConsumer(await media.createRouter(), 1234);
  const received: Buffer[] = [];
  const two = new Promise<void>((resolve) => consumer.on('rtp', (p) => received.push(p) === 2 && resolve()));
  const packet = keyframePacket(1, 1234);
  const payload = packet.subarray(12);
  const socket = media.channel!;
  const write = socket.write;
  const byMediasoup: Uint8Array[] = [];
  socket.write = ((chunk: Uint8Array, encoding: BufferEncoding) => (byMediasoup.push(Uint8Array.from(chunk)), write.call(socket, chunk, encoding))) as typeof write;
  // Every alignment of the packet's length (not sent on: only the first is a keyframe's start).
  const lengths = [0, 1, 2, 3].map((extra) => packet.subarray(0, packet.length - extra));
  for (const p of lengths) producer.send(p);
  socket.write = write;
  const ours = recorder();
  for (const p of lengths) new PacketChannel(producer.id, 'green', ours.writer).send(p);
  assert.equal(byMediasoup.length, lengths.length);
  assert.deepEqual(byMediasoup.map((m) => Buffer.from(m)), ours.written);
  // And through the worker's own channel: the packet arrives after mediasoup's.
  const second = Buffer.from(packet);
  second.writeUInt16BE(2, 2);
  new ChannelWriter(socket, noDrops()).sink(producer, 'green').send(second);
  await two;
  assert.deepEqual(received.map((p) => p.subarray(p.length - payload.length)), [payload, payload]);
});

test('a worker that falls behind: past half the cap red is dropped, past the cap yellow too, green never; what was written arrives', { timeout: 30_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const router = await media.createRouter();
  const ssrcs: Record<Color, number> = { green: 1001, yellow: 1002, red: 1003 };
  const ends = Object.fromEntries(await Promise.all(COLORS.map(async (c) => [c, await producerAndConsumer(router, ssrcs[c])] as const))) as Record<Color, Awaited<ReturnType<typeof producerAndConsumer>>>;
  const received = Object.fromEntries(COLORS.map((c) => [c, 0])) as Record<Color, number>;
  for (const c of COLORS) ends[c].consumer.on('rtp', () => received[c]++);
  assert.equal(media.packetSinks.kind, 'channel-writer');
  const socket = media.channel!;
  const cap = 256 * 1024;
  const drops = noDrops();
  const writer = new ChannelWriter(socket, drops, cap);
  const sink = Object.fromEntries(COLORS.map((c) => [c, writer.sink(ends[c].producer, c)])) as Record<Color, ReturnType<ChannelWriter['sink']>>;
  const seq = { green: 0, yellow: 0, red: 0 };
  const written = { green: 0, yellow: 0, red: 0 };
  const send = (c: Color) => {
    const before = drops[c];
    sink[c].send(keyframePacket(++seq[c], ssrcs[c]));
    if (drops[c] === before) written[c]++;
  };
  // The worker stopped: it reads nothing, so node's side of the socket fills.
  const pid = media.pid!;
  process.kill(pid, 'SIGSTOP');
  let resumed = false;
  const resume = () => {
    if (!resumed) process.kill(pid, 'SIGCONT');
    resumed = true;
  };
  t.after(resume);
  while (socket.writableLength < cap / 2) send('green');
  for (let i = 0; i < 10; i++) send('red');
  assert.equal(drops.red, 10, 'red dropped past half the cap');
  for (let i = 0; i < 10; i++) send('yellow');
  assert.equal(drops.yellow, 0, 'yellow kept below the cap');
  while (socket.writableLength < cap) send('green');
  for (let i = 0; i < 10; i++) send('yellow');
  for (let i = 0; i < 10; i++) send('green');
  assert.deepEqual(drops, { green: 0, yellow: 10, red: 10 });
  assert.deepEqual(written, { green: seq.green, yellow: 10, red: 0 });
  resume();
  // Every packet written reaches its consumer once the worker reads again.
  while (COLORS.some((c) => received[c] < written[c])) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(received, written);
  assert.equal(socket.writableLength, 0);
});

test("a writer whose socket is closed drops nothing and writes nothing (the worker is gone)", () => {
  const socket = new Writable({ write: (_c, _e, done) => done() });
  socket.destroy();
  const drops = noDrops();
  new PacketChannel('p', 'green', new ChannelWriter(socket, drops)).send(randomBytes(100));
  assert.deepEqual(drops, noDrops());
});
