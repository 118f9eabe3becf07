import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IvfReader } from '../ingest/ivfReader';
import { ivfFileHeader, ivfFrame } from './ivfWriter';

describe('ivfWriter', () => {
  it('writes what the ingest IVF reader reads back', () => {
    const r = new IvfReader();
    const frames = r.push(Buffer.concat([ivfFileHeader(640, 360, 30), ivfFrame(0, new Uint8Array([1, 2, 3])), ivfFrame(7, new Uint8Array([4]))]));
    assert.deepEqual(r.header, { fourcc: 'VP80', width: 640, height: 360, timebaseDen: 30, timebaseNum: 1 });
    assert.deepEqual(
      frames.map((f) => [f.pts, [...f.data]]),
      [
        [0n, [1, 2, 3]],
        [7n, [4]],
      ],
    );
  });
});
