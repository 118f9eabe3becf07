import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyframeThrottle } from './keyframeThrottle';

test('the first request forces a keyframe at once; requests inside the gap are held and served by one keyframe at its end', () => {
  const t = new KeyframeThrottle(1000);
  assert.equal(t.request(5000), true);
  assert.equal(t.dueAtMs, null);
  // Ten viewers join within the gap: one keyframe for all of them, when the gap ends.
  for (let ms = 5100; ms < 6000; ms += 90) assert.equal(t.request(ms), false);
  assert.equal(t.dueAtMs, 6000);
  assert.equal(t.due(5999), false);
  assert.equal(t.due(6000), true);
  assert.equal(t.dueAtMs, null);
  // That keyframe starts a new gap: the timer firing again forces nothing more.
  assert.equal(t.due(6500), false);
  assert.equal(t.request(6500), false);
  assert.equal(t.dueAtMs, 7000);
});

test('never more than one forced keyframe per gap, and no request is dropped, whatever their rate', () => {
  const t = new KeyframeThrottle(1000);
  const forced: number[] = [];
  let lastRequest = -1;
  // A request every 30 ms for 10 s, the caller's timer checked every 10 ms.
  for (let ms = 0; ms <= 10_000; ms += 10) {
    if (ms % 30 === 0) {
      lastRequest = ms;
      if (t.request(ms)) forced.push(ms);
    }
    if (t.due(ms)) forced.push(ms);
  }
  for (let i = 1; i < forced.length; i++) assert.ok(forced[i]! - forced[i - 1]! >= 1000, `forced at ${forced}`);
  assert.deepEqual(forced, [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000]);
  // The last request (at 9990 ms) is served by the keyframe at 10 s: nothing left held.
  assert.ok(lastRequest > forced.at(-2)!);
  assert.equal(t.dueAtMs, null);
});

test('any keyframe serves the held requests and starts the gap again: a periodic keyframe makes a forced one unneeded', () => {
  const t = new KeyframeThrottle(1000);
  assert.equal(t.request(0), true);
  t.keyframe(40); // the forced keyframe comes out of the encoder
  assert.equal(t.request(300), false);
  t.keyframe(600); // a periodic keyframe, before the held request was due
  assert.equal(t.dueAtMs, null);
  assert.equal(t.due(1040), false);
  // A request soon after that periodic keyframe waits for the gap from it.
  assert.equal(t.request(900), false);
  assert.equal(t.dueAtMs, 1600);
  assert.equal(t.due(1600), true);
});

test('a periodic keyframe long ago does not hold a request; a gap of 0 forces every request', () => {
  const t = new KeyframeThrottle(1000);
  t.keyframe(0);
  assert.equal(t.request(1000), true);
  const none = new KeyframeThrottle(0);
  assert.deepEqual([none.request(0), none.request(0), none.request(1)], [true, true, true]);
  assert.throws(() => new KeyframeThrottle(-1), /minGapMs must be a finite number >= 0; got -1/);
  assert.throws(() => new KeyframeThrottle(NaN), RangeError);
});
