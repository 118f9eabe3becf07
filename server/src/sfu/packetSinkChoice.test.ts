import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { localMediaWorker } from './localMediaWorker';
import { noDrops, type MediaWorker } from './mediaWorker';
import { CHANNEL_WRITER_MEDIASOUP_VERSION, choosePacketSinks, type PacketSinkChoice } from './packetSinkChoice';

/** A logger whose warnings are kept. */
function warnings(): { log: PacketSinkChoice['log']; warned: { problem?: string; msg: string }[] } {
  const warned: { problem?: string; msg: string }[] = [];
  const sink = new Writable({
    write(line: Buffer, _enc, done) {
      const entry = JSON.parse(line.toString()) as { level: number; problem?: string; msg: string };
      if (entry.level === 40) warned.push(entry);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), warned };
}

async function choose(media: MediaWorker, extra: Partial<PacketSinkChoice>) {
  const { log, warned } = warnings();
  const router = await media.createRouter();
  try {
    const sinks = await choosePacketSinks({ setting: 'auto', router, socket: media.channel!, drops: noDrops(), log, ...extra });
    return { sinks, warned, transports: [...(router as unknown as { transportsForTesting: Map<string, unknown> }).transportsForTesting.keys()] };
  } finally {
    router.close();
  }
}

test('the channel writer is taken on the mediasoup it was built for, when its message and the worker agree', { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  assert.equal(media.packetSinks.kind, 'channel-writer');
  const { sinks, warned, transports } = await choose(media, {});
  assert.equal(sinks.kind, 'channel-writer');
  assert.deepEqual(warned, []);
  assert.deepEqual(transports, [], 'the self-test closes what it made');
});

test('another mediasoup version: producer.send, with a warning naming both versions', { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const { sinks, warned } = await choose(media, { installedVersion: '3.28.0' });
  assert.equal(sinks.kind, 'producer-send');
  assert.equal(warned.length, 1);
  assert.equal(warned[0]!.problem, `mediasoup 3.28.0 is installed; the channel writer was built for ${CHANNEL_WRITER_MEDIASOUP_VERSION}`);
});

test("a socket that is not the worker's channel fails the self-test: producer.send, with a warning", { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const elsewhere = new Writable({ write: (_c, _e, done) => done() });
  const { sinks, warned, transports } = await choose(media, { socket: elsewhere });
  assert.equal(sinks.kind, 'producer-send');
  assert.match(warned[0]!.problem!, /producer\.send wrote 0 messages to the socket taken as the worker's channel, not 1/);
  assert.deepEqual(transports, []);
});

test("the worker's channel, but the writer's packets lost on the way: the self-test waits for the packet, then producer.send", { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  // mediasoup's own writes (Uint8Arrays) go through; the writer's (Buffers) are swallowed.
  const socket = media.channel!;
  const write = socket.write;
  const { log, warned } = warnings();
  const router = await media.createRouter();
  t.after(() => router.close());
  socket.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
    if (Buffer.isBuffer(chunk)) return true;
    return (write as (...a: unknown[]) => boolean).call(socket, chunk, ...rest);
  }) as typeof write;
  t.after(() => (socket.write = write));
  const sinks = await choosePacketSinks({ setting: 'auto', router, socket, drops: noDrops(), log });
  assert.equal(sinks.kind, 'producer-send');
  assert.match(warned[0]!.problem!, /did not reach a consumer on the worker within/);
});

test('PACKET_SINK=producer-send: no checks, and the packets reach the consumer through producer.send', { timeout: 20_000 }, async (t) => {
  const { media } = await localMediaWorker(pino({ level: 'silent' }));
  t.after(() => media.close());
  const { sinks, warned } = await choose(media, { setting: 'producer-send', installedVersion: 'never checked' });
  assert.equal(sinks.kind, 'producer-send');
  assert.deepEqual(warned, []);
  const router = await media.createRouter();
  t.after(() => router.close());
  const [into, out] = [await router.createDirectTransport(), await router.createDirectTransport()];
  const producer = await into.produce({ kind: 'video', rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: 101, clockRate: 90000 }], encodings: [{ ssrc: 77 }] } });
  const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
  const payload = Buffer.concat([Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]), randomBytes(300)]);
  const got = new Promise<Buffer>((resolve) => consumer.once('rtp', resolve));
  sinks.sink(producer, 'red').send(Buffer.concat([Buffer.from([0x80, 0xe5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 77]), payload]));
  assert.deepEqual((await got).subarray(-payload.length), payload);
});
