import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { IvfReader } from '../ingest/ivfReader';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { IngestFrames } from './ingestFrames';

const frames = new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => f.data);

test("an edge's frames (not measured): sets by index across runs, no reference read and nothing to measure", () => {
  const f = new IngestFrames({ encode: DEFAULT_ENCODE, renditions: [{ width: 320, height: 180, bitrateKbps: 200 }] });
  assert.equal(f.measured, false);
  assert.equal(f.referencePlanes, null);
  assert.deepEqual(f.qualityDrops, { 'reference reader': 0, 'quality thread': 0 });
  f.onRun();
  assert.deepEqual(f.push(0, frames[0]!, 0), []);
  const [set] = f.push(1, frames[0]!, 0);
  assert.deepEqual(set!.frames.map((x) => x.index), [0, 0]);
  f.measure(set!.frames, set!.pts);
  f.onRun();
  assert.equal(f.runStartIndex, 1);
  f.close();
});
