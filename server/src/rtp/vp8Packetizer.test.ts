import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseVp8Descriptor, writeVp8Descriptor } from './vp8Descriptor';
import { frameTemplates, Vp8Packetizer } from './vp8Packetizer';

const frame = (bytes: number) => Uint8Array.from({ length: bytes }, (_, i) => i & 0xff);
const base = { timestamp: 123456, pictureId: 300, tl0PicIdx: 7, temporalId: 2, layerSync: true, nonReference: true };

test('descriptor carries X, I (15-bit), L, T and Y/N/S bits', () => {
  const d = writeVp8Descriptor({ start: true, nonReference: true, pictureId: 0x1234, tl0PicIdx: 0xab, temporalId: 2, layerSync: true });
  assert.deepEqual([...d], [0x80 | 0x20 | 0x10, 0xe0, 0x80 | 0x12, 0x34, 0xab, (2 << 6) | 0x20]);
  assert.deepEqual(parseVp8Descriptor(d), { start: true, nonReference: true, pictureId: 0x1234, tl0PicIdx: 0xab, temporalId: 2, layerSync: true, length: 6 });
});

test('splits a frame into packets under the MTU; marker only on the last; S only on the first', () => {
  const p = new Vp8Packetizer(0xdeadbeef, 101, { mtu: 1200, initialSequence: 10 });
  const data = frame(5000);
  const pkts = p.packetize({ ...base, data });
  assert.equal(pkts.length, 5);
  for (const [i, pkt] of pkts.entries()) {
    assert.ok(pkt.length <= 1200);
    assert.equal(pkt[0], 0x80);
    assert.equal((pkt[1]! & 0x80) !== 0, i === pkts.length - 1, `marker of packet ${i}`);
    assert.equal(pkt[1]! & 0x7f, 101);
    assert.equal(pkt.readUInt16BE(2), 10 + i);
    assert.equal(pkt.readUInt32BE(4), 123456);
    assert.equal(pkt.readUInt32BE(8), 0xdeadbeef);
    const d = parseVp8Descriptor(pkt.subarray(12));
    assert.equal(d.start, i === 0);
    assert.equal(d.pictureId, 300);
    assert.equal(d.temporalId, 2);
  }
  const payload = Buffer.concat(pkts.map((pkt) => pkt.subarray(12 + 6)));
  assert.deepEqual(new Uint8Array(payload), data);
});

test('a small frame is one packet with S and marker', () => {
  const [pkt, ...rest] = new Vp8Packetizer(1, 101).packetize({ ...base, data: frame(29) });
  assert.equal(rest.length, 0);
  assert.ok(pkt![1]! & 0x80);
  assert.ok(parseVp8Descriptor(pkt!.subarray(12)).start);
});

test('sequence numbers wrap at 16 bits and continue across frames', () => {
  const p = new Vp8Packetizer(1, 101, { initialSequence: 0xfffe });
  const seqs = [...p.packetize({ ...base, data: frame(2500) }), ...p.packetize({ ...base, data: frame(10) })].map((x) => x.readUInt16BE(2));
  assert.deepEqual(seqs, [0xfffe, 0xffff, 0, 1]);
});

test('PictureID wraps at 15 bits', () => {
  const p = new Vp8Packetizer(1, 101);
  for (const [given, expected] of [[0x7fff, 0x7fff], [0x8000, 0], [0x8001, 1]] as const) {
    const [pkt] = p.packetize({ ...base, pictureId: given & 0x7fff, data: frame(10) });
    assert.equal(parseVp8Descriptor(pkt!.subarray(12)).pictureId, expected);
  }
});

test('timestamps are written as unsigned 32-bit', () => {
  const [pkt] = new Vp8Packetizer(1, 101).packetize({ ...base, timestamp: 2 ** 32 - 1, data: frame(10) });
  assert.equal(pkt!.readUInt32BE(4), 2 ** 32 - 1);
});

test('a frame is split once for every stream that sends it; each stream stamps only its RTP header and TL0PICIDX', () => {
  const data = frame(3000);
  const f = { ...base, data };
  const templates = frameTemplates(f, 1200 - 12 - 6);
  assert.equal(frameTemplates({ ...f }, 1200 - 12 - 6), templates, 'the same frame data: the same templates');
  const a = new Vp8Packetizer(0xa, 101, { initialSequence: 5 }).packetize(f);
  const b = new Vp8Packetizer(0xb, 101, { initialSequence: 900 }).packetize({ ...f, timestamp: 42, tl0PicIdx: 200 });
  assert.equal(a.length, templates.length);
  for (const [i, pa] of a.entries()) {
    const pb = b[i]!;
    assert.equal(pb.readUInt32BE(8), 0xb);
    assert.equal(pb.readUInt16BE(2), 900 + i);
    assert.equal(pb.readUInt32BE(4), 42);
    assert.equal(parseVp8Descriptor(pa.subarray(12)).tl0PicIdx, 7);
    assert.equal(parseVp8Descriptor(pb.subarray(12)).tl0PicIdx, 200);
    // Past the header and TL0PICIDX, byte for byte the same packet.
    assert.deepEqual(pa.subarray(12 + 5), pb.subarray(12 + 5));
    assert.deepEqual(pa.subarray(12, 12 + 4), pb.subarray(12, 12 + 4));
  }
  // The same bytes sent again as another frame (a synthetic keyframe with a new PictureID) get their own descriptor.
  const again = new Vp8Packetizer(0xa, 101).packetize({ ...f, pictureId: 301 });
  assert.equal(parseVp8Descriptor(again[0]!.subarray(12)).pictureId, 301);
});
