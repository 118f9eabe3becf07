import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentBases } from './recentBases';

test('the lowest and highest readings in effect within the window, per rendition; older ones drop out', () => {
  const r = new RecentBases(10_000);
  r.add([200, 50], 0);
  r.add([340, 60], 1000);
  r.add([190, 40], 2000);
  assert.deepEqual([r.low(0), r.high(0), r.low(1), r.high(1)], [190, 340, 40, 60]);
  r.add([250, 45], 11_500);
  // The reading of 0 s was replaced at 1 s, before the window (from 1.5 s); 340 was in effect until 2 s.
  assert.deepEqual([r.low(0), r.high(0)], [190, 340]);
  r.add([260, 45], 12_500);
  // 190 was in effect until 11.5 s.
  assert.deepEqual([r.low(0), r.high(0)], [190, 260]);
  r.add([270, 45], 21_600);
  // 250 was in effect until 12.5 s, inside the window (from 11.6 s); 260 until 21.6 s.
  assert.deepEqual([r.low(0), r.high(0)], [250, 270]);
});

test('a zero window is the latest reading alone', () => {
  const r = new RecentBases(0);
  r.add([200], 0);
  r.add([340], 1000);
  assert.deepEqual([r.low(0), r.high(0)], [340, 340]);
});

test('unknown while the latest reading is unknown; earlier unknowns are skipped', () => {
  const r = new RecentBases(10_000);
  r.add([null, 50], 0);
  assert.equal(r.low(0), null);
  r.add([300, 50], 1000);
  assert.deepEqual([r.low(0), r.high(0)], [300, 300]);
  r.add([null, 50], 2000);
  assert.equal(r.high(0), null);
  assert.equal(r.high(5), null);
});

test('the same array handed again is not a new reading (the caller hands a new one per update)', () => {
  const r = new RecentBases(1000);
  const a = [300];
  r.add(a, 0);
  r.add(a, 5000);
  r.add([100], 5500);
  // The reading of 0 s was in effect until 5.5 s.
  assert.deepEqual([r.low(0), r.high(0)], [100, 300]);
  r.add([120], 7000);
  assert.deepEqual([r.low(0), r.high(0)], [100, 120]);
});

test('a negative or non-finite window is refused', () => {
  assert.throws(() => new RecentBases(-1), RangeError);
  assert.throws(() => new RecentBases(Number.NaN), RangeError);
});
