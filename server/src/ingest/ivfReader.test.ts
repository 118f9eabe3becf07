import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { IvfFormatError, IvfReader } from './ivfReader';

const ivf = readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url));

function readAll(chunkSize: number): { frames: number; bytes: number; pts: bigint[] } {
  const r = new IvfReader();
  let frames = 0;
  let bytes = 0;
  const pts: bigint[] = [];
  for (let off = 0; off < ivf.length; off += chunkSize) {
    for (const f of r.push(ivf.subarray(off, off + chunkSize))) {
      frames++;
      bytes += f.data.length;
      pts.push(f.pts);
    }
  }
  return { frames, bytes, pts };
}

test('reads the header FFmpeg wrote', () => {
  const r = new IvfReader();
  r.push(ivf.subarray(0, 40));
  assert.deepEqual(r.header, { fourcc: 'VP80', width: 640, height: 360, timebaseNum: 1, timebaseDen: 30 });
});

test('yields the same frames whatever the chunk boundaries', () => {
  const whole = readAll(ivf.length);
  assert.equal(whole.frames, 24);
  assert.equal(whole.bytes, ivf.length - 32 - 24 * 12);
  for (const size of [1, 7, 12, 31, 4096]) assert.deepEqual(readAll(size), whole, `chunk size ${size}`);
  assert.deepEqual(whole.pts, Array.from({ length: 24 }, (_, i) => BigInt(i)));
});

test('returns a frame as soon as its last byte arrives', () => {
  const r = new IvfReader();
  const firstSize = ivf.readUInt32LE(32);
  const end = 32 + 12 + firstSize;
  assert.equal(r.push(ivf.subarray(0, end - 1)).length, 0);
  assert.equal(r.push(ivf.subarray(end - 1, end)).length, 1);
});

test('frames stay valid after more data is pushed', () => {
  const r = new IvfReader();
  const [first] = r.push(ivf.subarray(0, 32 + 12 + ivf.readUInt32LE(32) + 5));
  const copy = Buffer.from(first!.data);
  r.push(ivf.subarray(32 + 12 + ivf.readUInt32LE(32) + 5));
  assert.deepEqual(Buffer.from(first!.data), copy);
});

test('rejects a stream that is not IVF', () => {
  const r = new IvfReader();
  assert.throws(() => r.push(Buffer.alloc(64, 0x41)), IvfFormatError);
});

test('rejects an absurd frame size instead of buffering forever', () => {
  const bad = Buffer.from(ivf.subarray(0, 44));
  bad.writeUInt32LE(0xffffffff, 32);
  assert.throws(() => new IvfReader().push(bad), /corrupt/);
});
