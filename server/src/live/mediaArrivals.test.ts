import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MediaArrivals, PTS_WRAP_MS, WALL_CLOCK_WINDOW_MS } from './mediaArrivals';

test("a frame's arrival by its instant since the first frame: the first frame at or past it (1 ms of rounding allowed)", () => {
  const a = new MediaArrivals();
  // 30 fps from timestamp 5000, each arriving 2 ms after its instant at a 1000 ms clock offset.
  for (let i = 0; i < 10; i++) a.note(5000 + Math.round((i * 1000) / 30), 1000 + (i * 1000) / 30 + 2);
  assert.equal(a.arrival(0), 1002);
  assert.equal(a.arrival(100), 1000 + 100 + 2);
  // Frame 2 (66.67 ms) was stamped 67: still frame 2.
  assert.equal(a.arrival((2 * 1000) / 30), 1000 + (2 * 1000) / 30 + 2);
  assert.equal(a.arrival(1000), undefined, 'not come yet');
  assert.equal(new MediaArrivals().arrival(0), undefined);
});

test('timestamps that wrap at 2^32 go on; one that goes back is not a later frame; old ones leave', () => {
  const a = new MediaArrivals();
  a.note(2 ** 32 - 10, 1);
  a.note(23, 2); // 33 ms later, past the wrap
  a.note(0, 3); // back: ignored
  assert.equal(a.arrival(33), 2);
  for (let i = 2; i < 1000; i++) a.note(((2 ** 32 - 10 + i * 33) >>> 0), 100 + i);
  assert.equal(a.arrival(0), undefined, 'the first frame has left');
  assert.equal(a.arrival(999 * 33), 1099);
});

test("a publisher stamping the wall clock: each frame's capture time, by RTMP's 32-bit or MPEG-TS's 33-bit timestamps", () => {
  const now = 1_795_838_979_907;
  const rtmp = new MediaArrivals();
  // Captured 40 ms before it arrived, then 30 fps.
  rtmp.note((now - 40) % 2 ** 32, now);
  rtmp.note((now - 40 + 33) % 2 ** 32, now + 35);
  assert.equal(rtmp.capture(0), now - 40);
  assert.equal(rtmp.capture(33), now - 7);
  const ts = new MediaArrivals(PTS_WRAP_MS);
  ts.note(Math.floor(((now - 120) * 90) % 2 ** 33 / 90), now);
  assert.ok(Math.abs(ts.capture(0)! - (now - 120)) <= 1);
});

test('a publisher counting from 0, or far from the clock: no capture times', () => {
  const a = new MediaArrivals();
  a.note(0, 1_795_838_979_907);
  a.note(33, 1_795_838_979_940);
  assert.equal(a.capture(0), undefined);
  assert.equal(a.arrival(33), 1_795_838_979_940);
  const late = new MediaArrivals();
  late.note((1_795_838_979_907 - WALL_CLOCK_WINDOW_MS - 500) % 2 ** 32, 1_795_838_979_907);
  assert.equal(late.capture(0), undefined);
});

test("frames written earlier by a span dropped before them (StaleMediaSkip): the ingest's frame finds its own arrival and capture time", () => {
  const now = 1_795_838_979_907;
  const a = new MediaArrivals();
  const t0 = (now - 50) % 2 ** 32;
  a.note(t0, now);
  a.note(t0 + 33, now + 33);
  // 1 s of the publisher's media dropped: its frame at t0 + 1066 is written at t0 + 66.
  a.note(t0 + 1066, now + 1100, 1000);
  assert.equal(a.arrival(66), now + 1100);
  assert.equal(a.capture(66), now - 50 + 1066);
  assert.equal(a.capture(33), now - 50 + 33);
});

test("capture times the publisher sent with its frames (WHIP's abs-capture-time) are each frame's own, whatever its timestamps count from", () => {
  const a = new MediaArrivals();
  a.note(0, 1_000_000, 0, 999_900);
  a.note(33, 1_000_040, 0, 999_933.5);
  assert.equal(a.capture(0), 999_900);
  assert.equal(a.capture(33), 999_933.5);
  assert.equal(a.arrival(33), 1_000_040);
});
