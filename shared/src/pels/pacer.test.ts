import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Color } from './color';
import { Pacer, PACER_DEFAULTS } from './pacer';

const packet = (n: number, bytes = 1200) => Array.from({ length: n }, () => Buffer.alloc(bytes));

function recorder() {
  const sent: { color: Color; atMs: number }[] = [];
  let now = 0;
  return { sent, at: (ms: number) => (now = ms), out: (color: Color) => sent.push({ color, atMs: now }) };
}

test('an ordinary frame within the burst window goes out at once', () => {
  const pacer = new Pacer<Buffer>();
  pacer.setTargetKbps(1000); // 2500 kb/s: 40 ms is 12.5 kB
  const r = recorder();
  pacer.send('green', packet(4), 0, r.out);
  assert.equal(r.sent.length, 4);
  assert.equal(pacer.backlogBytes, 0);
  assert.deepEqual(pacer.delay, { frames: 1, totalMs: 0, maxMs: 0 });
});

test('a keyframe is spread at 2.5 times the target rate, not sent in one burst', () => {
  const pacer = new Pacer<Buffer>();
  pacer.setTargetKbps(800); // 2000 kb/s = 250 bytes a ms; the burst window 10 kB
  const r = recorder();
  pacer.send('green', packet(50), 0, r.out); // 60 kB
  const atOnce = r.sent.length;
  assert.ok(atOnce >= 8 && atOnce <= 10, `${atOnce} packets at once`);
  for (let t = 5; t <= 400; t += 5) {
    r.at(t);
    pacer.drain(t, r.out);
  }
  assert.equal(r.sent.length, 50);
  const last = r.sent.at(-1)!.atMs;
  // (60 kB - the window) at 250 bytes a ms: about 200 ms.
  assert.ok(last >= 180 && last <= 220, `last packet at ${last} ms`);
  assert.equal(pacer.delay.frames, 1);
  assert.equal(pacer.delay.maxMs, last);
});

test('green first: a waiting enhancement frame yields to a green frame that arrives after it', () => {
  const pacer = new Pacer<Buffer>();
  pacer.setTargetKbps(400); // 1000 kb/s = 125 bytes a ms, window 5 kB
  const r = recorder();
  pacer.send('yellow', packet(20), 0, r.out);
  const before = r.sent.length;
  pacer.send('green', packet(3), 1, r.out);
  for (let t = 5; t <= 300; t += 5) {
    r.at(t);
    pacer.drain(t, r.out);
  }
  const after = r.sent.slice(before).map((s) => s.color);
  assert.deepEqual(after.slice(0, 3), ['green', 'green', 'green']);
  assert.equal(after.length, 23 - before);
  assert.ok(after.slice(3).every((c) => c === 'yellow'));
});

test('a backlog never waits past maxQueueMs: a low target drains it faster', () => {
  const pacer = new Pacer<Buffer>({ ...PACER_DEFAULTS, minKbps: 10 });
  pacer.setTargetKbps(10); // 25 kb/s: 60 kB would take 19 s
  const r = recorder();
  pacer.send('green', packet(50), 0, r.out);
  for (let t = 5; t <= 1000 && pacer.backlogBytes > 0; t += 5) {
    r.at(t);
    pacer.drain(t, r.out);
  }
  assert.equal(r.sent.length, 50);
  assert.ok(r.sent.at(-1)!.atMs <= PACER_DEFAULTS.maxQueueMs + 100, `last packet at ${r.sent.at(-1)!.atMs} ms`);
});

test('packets keep their order within a color; frames are timed from arrival to their last packet', () => {
  const pacer = new Pacer<Buffer>();
  pacer.setTargetKbps(400);
  const sent: Buffer[] = [];
  const frames = [packet(10, 1000), packet(10, 1000), packet(10, 1000)];
  frames.forEach((f, i) => pacer.send('yellow', f, i * 33, (_c, p) => sent.push(p)));
  for (let t = 70; t <= 600; t += 5) pacer.drain(t, (_c, p) => sent.push(p));
  assert.deepEqual(sent, frames.flat());
  assert.equal(pacer.delay.frames, 3);
  assert.ok(pacer.delay.maxMs > 0 && pacer.delay.totalMs >= pacer.delay.maxMs);
});

test('bad settings are refused', () => {
  assert.throws(() => new Pacer({ ...PACER_DEFAULTS, factor: 0.5 }), RangeError);
  assert.throws(() => new Pacer({ ...PACER_DEFAULTS, maxQueueMs: 0 }), RangeError);
});
