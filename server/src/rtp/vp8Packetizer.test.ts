import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseVp8Descriptor, writeVp8Descriptor } from './vp8Descriptor';
import { Vp8Packetizer } from './vp8Packetizer';

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
