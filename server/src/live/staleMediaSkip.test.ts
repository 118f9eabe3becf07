import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StaleMediaSkip } from './staleMediaSkip';

const WRAP = 2 ** 32;

test('on time: every message is written with its own timestamp; codec headers take the last one written', () => {
  const s = new StaleMediaSkip(400, WRAP);
  assert.equal(s.next('keyframe', 1000, 0), 1000);
  assert.equal(s.next('audio', 1010, 0), 1010);
  assert.equal(s.next('frame', 1033, 100), 1033);
  assert.equal(s.next('header', 0, 900), 1033);
  assert.equal(s.shiftMs, 0);
  assert.equal(s.skips, 0);
});

test('behind: audio and video dropped up to a keyframe that comes once the ingest caught up to half the bound; what follows is written one frame after the last frame kept, with no gap for a frame-rate filter to fill', () => {
  const s = new StaleMediaSkip(400, WRAP);
  for (let t = 0; t <= 330; t += 33) assert.equal(s.next(t % 330 === 0 ? 'keyframe' : 'frame', t, 100), t);
  assert.equal(s.next('audio', 340, 100), 340);
  // Behind from 363: dropped, a keyframe too while still over 200 ms behind.
  assert.equal(s.next('frame', 363, 450), null);
  assert.equal(s.next('audio', 380, 450), null);
  assert.equal(s.next('keyframe', 660, 300), null);
  assert.equal(s.isSkipping, true);
  assert.equal(s.next('frame', 693, 150), null, 'not a keyframe');
  // The next keyframe, caught up: it follows 330 one interval later.
  assert.equal(s.next('keyframe', 990, 150), 363);
  assert.equal(s.shiftMs, 627);
  assert.equal(s.next('audio', 1000, 0), 373);
  assert.equal(s.next('frame', 1023, 0), 396);
  assert.equal(s.skips, 1);
  assert.equal(s.dropped, 4);
});

test("audio kept before the cut that reaches past the keyframe's new time: what would go back is dropped", () => {
  const s = new StaleMediaSkip(400, WRAP);
  s.next('keyframe', 0, 0);
  assert.equal(s.next('audio', 60, 0), 60);
  s.next('frame', 500, 500);
  assert.equal(s.next('keyframe', 1000, 0), 33);
  assert.equal(s.next('audio', 1010, 0), null, '43 would go back from 60');
  assert.equal(s.next('audio', 1031, 0), 64);
});

test('timestamps that wrap: the span dropped is counted across the wrap', () => {
  const s = new StaleMediaSkip(400, WRAP);
  s.next('keyframe', WRAP - 100, 0);
  s.next('frame', WRAP - 67, 0);
  s.next('frame', WRAP - 34, 500);
  assert.equal(s.next('keyframe', 900, 0), WRAP - 34);
  assert.equal(s.shiftMs, 934);
  assert.equal(s.next('frame', 933, 0), WRAP - 1);
});

test("audio of the span dropped that comes after the keyframe (MPEG-TS muxers send sound late, several frames a PES) is dropped too", () => {
  const s = new StaleMediaSkip(400, WRAP);
  s.next('keyframe', 0, 0);
  s.next('frame', 500, 500);
  assert.equal(s.next('keyframe', 1000, 0), 33);
  assert.equal(s.next('audio', 880, 0), null, 'sound of the span dropped');
  assert.equal(s.next('audio', 1000, 0), 33);
});
