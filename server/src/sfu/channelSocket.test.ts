import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { pino } from 'pino';
import { localMediaWorkers } from './localMediaWorker';

/** A VP8 keyframe's start (descriptor S bit; frame tag, start code, 160x90): the consumer forwards from a keyframe on. */
const KEYFRAME_START = Buffer.from([0x10, 0x50, 0x2d, 0x01, 0x9d, 0x01, 0x2a, 0xa0, 0x00, 0x5a, 0x00]);

/** RTP version 2, payload type 101; the marker on the last; SSRC 1234. */
function packet(seq: number, last: boolean): Buffer {
  const header = Buffer.from([0x80, last ? 0xe5 : 0x65, seq >> 8, seq & 0xff, 0, 1, 0x5f, 0x90, 0, 0, 0x04, 0xd2]);
  return Buffer.concat([header, seq === 1 ? KEYFRAME_START : Buffer.from([0x00]), randomBytes(1000)]);
}

test("a batch holds the packets sent in it in each worker's channel and they all arrive, in order, when it ends", { timeout: 20_000 }, async (t) => {
  const { pool } = await localMediaWorkers(pino({ level: 'silent' }), 2);
  t.after(() => pool.close());
  const router = await pool.createRouter(1);
  const [into, out] = [await router.createDirectTransport(), await router.createDirectTransport()];
  const producer = await into.produce({
    kind: 'video',
    rtpParameters: { codecs: [{ mimeType: 'video/VP8', payloadType: 101, clockRate: 90000 }], encodings: [{ ssrc: 1234 }] },
  });
  const consumer = await out.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
  const count = 50;
  const sent = Array.from({ length: count }, (_, k) => packet(k + 1, k === count - 1));
  const received: Buffer[] = [];
  const all = new Promise<void>((resolve) => consumer.on('rtp', (p) => received.push(p) === count && resolve()));
  const written = pool.batch(() => {
    for (const p of sent) producer.send(p);
    // Corked: the messages are held in node, none written yet (each is larger than its packet).
    return pool['workers'].map((w) => w.channel!.writableLength);
  });
  assert.equal(written[0], 0, 'nothing for the other worker');
  assert.ok(written[1]! > count * 1000, `held ${written[1]} bytes`);
  assert.equal(pool['workers'][1]!.channel!.writableCorked, 0, 'uncorked after the batch');
  await all;
  // The consumer adds header extensions: the payloads are compared.
  assert.deepEqual(
    received.map((p, k) => p.subarray(p.length - sent[k]!.length + 12)),
    sent.map((p) => p.subarray(12)),
  );
});

test('a batch that throws still uncorks the channels', { timeout: 20_000 }, async (t) => {
  const { pool } = await localMediaWorkers(pino({ level: 'silent' }), 1);
  t.after(() => pool.close());
  assert.throws(() => pool.batch(() => {
    throw new Error('boom');
  }), /boom/);
  assert.equal(pool['workers'][0]!.channel!.writableCorked, 0);
  // The channel still carries requests.
  await pool.createRouter(0);
});
