import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { IvfReader } from '../ingest/ivfReader';
import { RenditionFrames } from './renditionFrames';

const frames = new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => f.data);

test('a set goes out once every rendition has its frame, in whichever order they come; indexes go on across runs', () => {
  const r = new RenditionFrames(2, 3000);
  assert.deepEqual(r.push(1, frames[0]!, 0), []);
  assert.deepEqual(r.push(1, frames[1]!, 1), []);
  const first = r.push(0, frames[0]!, 0);
  assert.equal(first.length, 1);
  assert.deepEqual(first[0]!.frames.map((f) => [f.index, f.ticks, f.keyframe]), [[0, 0, true], [0, 0, true]]);
  assert.deepEqual(r.push(0, frames[1]!, 1)[0]!.frames.map((f) => f.index), [1, 1]);
  r.newRun();
  assert.deepEqual(r.push(0, frames[0]!, 0), []);
  assert.deepEqual(r.push(1, frames[0]!, 0)[0]!.frames.map((f) => f.index), [2, 2]);
});

test('a set left incomplete is dropped when a later one completes; one rendition passes straight through', () => {
  const r = new RenditionFrames(2, 3000);
  r.push(0, frames[0]!, 0);
  r.push(0, frames[1]!, 1);
  r.push(1, frames[1]!, 1);
  assert.deepEqual(r.push(1, frames[0]!, 0), []);
  const one = new RenditionFrames(1, 3000);
  assert.deepEqual(one.push(0, frames[0]!, 0).map((s) => s.frames.length), [1]);
  assert.throws(() => one.push(0, new Uint8Array([1, 2]), 1));
});

test('a rendition a burst behind another (FFmpeg writes its backlog to each encoder in turn): every set still goes out', () => {
  const r = new RenditionFrames(2, 3000);
  const burst = 90;
  for (let pts = 0; pts < burst; pts++) assert.deepEqual(r.push(0, frames[pts % frames.length]!, pts), []);
  const out = Array.from({ length: burst }, (_, pts) => r.push(1, frames[pts % frames.length]!, pts)).flat();
  assert.deepEqual(out.map((s) => s.pts), Array.from({ length: burst }, (_, i) => i));
});
