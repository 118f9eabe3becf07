import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { EventQueue } from './eventQueue';

test('events run in time order, ties first-scheduled first, and the clock follows them', () => {
  const q = new EventQueue();
  const seen: string[] = [];
  const log = (name: string) => () => seen.push(`${name}@${q.nowMs}`);
  q.at(5, log('c'));
  q.at(1, log('a'));
  q.at(5, log('d'));
  q.at(3, () => {
    seen.push(`b@${q.nowMs}`);
    q.after(2, log('e')); // same instant as c and d, scheduled later
  });
  q.runUntil(10);
  assert.deepEqual(seen, ['a@1', 'b@3', 'c@5', 'd@5', 'e@5']);
  assert.equal(q.nowMs, 10);
  assert.equal(q.eventsRun, 5);
});

test('runUntil leaves later events queued', () => {
  const q = new EventQueue();
  let ran = 0;
  q.at(4, () => ran++);
  q.at(8, () => ran++);
  q.runUntil(5);
  assert.equal(ran, 1);
  assert.equal(q.size, 1);
  q.runUntil(8);
  assert.equal(ran, 2);
});

test('scheduling in the past is refused', () => {
  const q = new EventQueue();
  q.runUntil(10);
  assert.throws(() => q.at(9, () => {}), RangeError);
  assert.throws(() => q.at(Number.NaN, () => {}), RangeError);
});

test('the heap orders thousands of random events like a sort does', () => {
  const q = new EventQueue();
  const random = mulberry32(7);
  const times = Array.from({ length: 5000 }, () => Math.floor(random() * 1000));
  const order: number[] = [];
  times.forEach((t, i) => q.at(t, () => order.push(i)));
  q.runUntil(1000);
  const expected = times.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i).map((x) => x.i);
  assert.deepEqual(order, expected);
});
