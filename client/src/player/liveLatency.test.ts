import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveLatency } from './liveLatency';

test('a frame drawn before or after its row: entry-to-display latency on the server clock, by the offset', () => {
  const l = new LiveLatency();
  // The server's clock is 5000 ms ahead of the page's.
  const offset = 5000;
  l.frameTimes(0, { ingestMs: 100_000 });
  l.drawn(0, 100_000 - offset + 400); // drawn 400 ms after it entered the server
  l.drawn(1, 100_033 - offset + 500);
  l.frameTimes(1, { ingestMs: 100_033, captureMs: 99_900 });
  const s = l.stats(offset);
  assert.deepEqual(s.fromIngest, { p50: 500, p95: 500, last: 500, frames: 2 });
  assert.deepEqual(s.fromCapture, { p50: 633, p95: 633, last: 633, frames: 1 });
  assert.deepEqual(l.stats(null), { fromIngest: null, fromCapture: null, stages: null });
});

test('p50 and p95 over the last 300 frames; a row never matched or a frame never scored leaves no figure', () => {
  const l = new LiveLatency();
  for (let i = 0; i < 400; i++) {
    l.frameTimes(i, { ingestMs: i * 33 });
    l.drawn(i, i * 33 + (i < 100 ? 10_000 : i % 100)); // the first 100 are out of the window
  }
  const s = l.stats(0)!.fromIngest!;
  assert.equal(s.frames, 300);
  assert.equal(s.p50, 50);
  assert.equal(s.p95, 95);
  assert.equal(s.last, 99);
  l.drawn(1000, 0);
  l.frameTimes(2000, { ingestMs: 0 });
  assert.equal(l.stats(0).fromIngest!.frames, 300);
  assert.equal(l.stats(0).fromCapture, null);
});

test("each stage's median: capture to entry, entry to encode (server clock), encode to arrival (across the clocks), arrival to decode, decode to draw (page clock)", () => {
  const l = new LiveLatency();
  const offset = 5000;
  for (let i = 0; i < 5; i++) {
    const ingest = 100_000 + i * 33;
    l.frameTimes(i, { ingestMs: ingest, encodedMs: ingest + 60, captureMs: ingest - 20 });
    const arrived = ingest + 60 + 30 - offset;
    l.arrived(i, arrived);
    l.decoded(i, arrived + 15);
    l.drawn(i, arrived + 15 + 40);
  }
  const s = l.stats(offset);
  assert.deepEqual(s.stages, { publisher: 20, ingest: 60, network: 30, buffer: 15, display: 40 });
  assert.equal(s.fromCapture!.p50, 20 + 60 + 30 + 15 + 40);
  const bare = new LiveLatency();
  bare.frameTimes(0, { ingestMs: 1000 });
  bare.drawn(0, 1200);
  assert.deepEqual(bare.stats(0).stages, { publisher: null, ingest: null, network: null, buffer: null, display: null });
});
