import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Vp8Packetizer } from '../rtp/vp8Packetizer';
import { FrameAssembler } from './frameAssembler';

const TICKS = 3000;

function frameData(size: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + seed) & 0xff);
}

function packets(p: Vp8Packetizer, index: number, data: Uint8Array): Buffer[] {
  return p.packetize({ data, timestamp: (index * TICKS) % 2 ** 32, pictureId: index & 0x7fff, tl0PicIdx: 0, temporalId: 0, layerSync: false, nonReference: false });
}

test('frames come back whole, at their index, from one or many packets', () => {
  const p = new Vp8Packetizer(1234, 101);
  const a = new FrameAssembler(TICKS, 10);
  const out = [];
  for (const [index, size] of [[10, 300], [11, 5000], [12, 1]] as const) {
    const data = frameData(size, index);
    for (const pkt of packets(p, index, data)) {
      const f = a.push(pkt);
      if (f) out.push({ index: f.index, same: Buffer.from(f.data).equals(Buffer.from(data)) });
    }
  }
  assert.deepEqual(out, [{ index: 10, same: true }, { index: 11, same: true }, { index: 12, same: true }]);
});

test('a frame with a packet missing is dropped whole; the next frame comes', () => {
  const p = new Vp8Packetizer(1, 101);
  const a = new FrameAssembler(TICKS, 0);
  const broken = packets(p, 0, frameData(4000, 1));
  assert.ok(broken.length >= 3);
  const got = [...broken.filter((_, k) => k !== 1), ...packets(p, 1, frameData(2000, 2))].map((pkt) => a.push(pkt)).filter((f) => f !== null);
  assert.deepEqual(got.map((f) => f.index), [1]);
  assert.equal(a.framesDropped, 1);
});

test('the index goes on across the 32-bit timestamp wrap', () => {
  const first = Math.floor(2 ** 32 / TICKS) - 1;
  const p = new Vp8Packetizer(1, 101);
  const a = new FrameAssembler(TICKS, first);
  const indexes = [first, first + 1, first + 2, first + 3].map((i) => packets(p, i, frameData(10, i)).map((pkt) => a.push(pkt)).find((f) => f)!.index);
  assert.deepEqual(indexes, [first, first + 1, first + 2, first + 3]);
});

test('bytes that are not RTP are ignored', () => {
  const a = new FrameAssembler(TICKS, 0);
  assert.equal(a.push(Buffer.from([1, 2, 3])), null);
});
