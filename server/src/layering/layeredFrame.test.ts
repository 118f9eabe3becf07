import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseVp8FrameHeader } from '@pels/shared/vp8/frameHeader';
import { IvfReader } from '../ingest/ivfReader';
import { FrameLayering } from './layeredFrame';

// 24 frames encoded with the product's settings (testdata/make-city-ivf.sh).
const frames = new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url)));

test('the VP8 header gives the encoder layer pattern 0,2,1,2 on real frames', () => {
  const tids = frames.map((f) => parseVp8FrameHeader(f.data).temporalId);
  assert.deepEqual(tids, Array.from({ length: 24 }, (_, i) => [0, 2, 1, 2][i % 4]));
});

test('the first frame is a 640x360 keyframe and the others are not', () => {
  const h = frames.map((f) => parseVp8FrameHeader(f.data));
  assert.equal(h[0]!.keyframe, true);
  assert.equal(h[0]!.width, 640);
  assert.equal(h[0]!.height, 360);
  assert.equal(h.slice(1).filter((x) => x.keyframe).length, 0);
});

test('reference buffer updates match the layer roles', () => {
  for (const f of frames.slice(1)) {
    const h = parseVp8FrameHeader(f.data);
    if (h.temporalId === 0) assert.ok(h.refreshLast);
    if (h.temporalId === 1) assert.ok(!h.refreshLast && (h.refreshGolden || h.refreshAltRef));
    if (h.temporalId === 2) assert.ok(!h.refreshLast && !h.refreshGolden && !h.refreshAltRef);
  }
});

test('layering numbers frames, spaces timestamps and marks sync points', () => {
  const layering = new FrameLayering(3000);
  const out = frames.map((f) => layering.next(f.data));
  assert.deepEqual(out.map((f) => f.index), Array.from({ length: 24 }, (_, i) => i));
  assert.deepEqual(out.map((f) => f.ticks).slice(0, 3), [0, 3000, 6000]);
  // per period: base, TID 2 after base (sync), TID 1 (sync), TID 2 after TID 1 (not sync)
  assert.deepEqual(out.slice(4, 8).map((f) => f.layerSync), [false, true, true, false]);
  assert.deepEqual(out.slice(4, 8).map((f) => f.nonReference), [false, true, false, true]);
});
