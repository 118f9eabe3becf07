import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AvSync } from './avSync';
import { DisplayClock } from '../quality/displayClock';

const FRAME_MS = 1000 / 30;

test("the sound's lateness: now minus the source instant its timestamp stands for, across the 32-bit wrap", () => {
  const base = 2 ** 32 - 4800; // wraps 100 ms into the stream
  const sync = new AvSync({ timestampBase: base, clockRate: 48000 }, FRAME_MS);
  assert.equal(sync.latenessMs, null);
  // Instant 10 s (timestamp wrapped) plays at 10.2 s: 200 ms late.
  sync.played((base + 480000) % 2 ** 32, 10200, 300);
  assert.equal(sync.latenessMs, 200);
  // Frame 300 (10 s) drawn at 10.18 s: the sound of its instant plays 20 ms after it.
  sync.drawn(300, 10180);
  assert.ok(Math.abs(sync.offsetMs! - 20) < 1e-9);
});

test('with sound, a frame is not due before its instant plays', () => {
  const clock = new DisplayClock({ frameMs: FRAME_MS });
  clock.decoded(0, 5);
  assert.ok(clock.nextDueMs()! < 20); // video alone: at once
  clock.setSoundLateness(150);
  assert.equal(clock.nextDueMs(), 150);
  assert.deepEqual(clock.advance(149), []);
  assert.deepEqual(clock.advance(150).map((s) => s.shown), [0]);
});
