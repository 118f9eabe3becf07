import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SOUND_DELAY_MS, SOUND_BUFFER_FLOOR_MS, SoundDelay } from './soundDelay';

/**
 * A receiver that reaches its target in `lag` updates, and a picture ready `videoMs` after its instant: the lead is the
 * picture's lateness minus the sound's (network 30 ms plus the buffer, at least its own 40 ms).
 */
function simulate(delay: SoundDelay, videoMs: (step: number) => number, steps: number, lag = 2): { lead: number[]; target: number[] } {
  let buffer = 40;
  const lead: number[] = [];
  const target: number[] = [];
  for (let i = 0; i < steps; i++) {
    const l = videoMs(i) - (30 + buffer);
    lead.push(l);
    delay.update(l, buffer);
    target.push(delay.targetMs);
    const goal = Math.max(40, delay.targetMs);
    buffer += (goal - buffer) / lag;
  }
  return { lead, target };
}

test('in sync or frames waiting a little: nothing set', () => {
  const delay = new SoundDelay();
  assert.equal(delay.update(5, 40), null);
  assert.equal(delay.update(-200, 40), null);
  assert.equal(delay.update(null, 40), null);
  assert.equal(delay.update(50, null), null);
  assert.equal(delay.targetMs, 0);
});

test('frames later than the sound: the sound is held until they meet, in steps, without overshoot', () => {
  const delay = new SoundDelay();
  const { lead, target } = simulate(delay, () => 300, 12);
  // Needs 230 ms more than the 40 ms buffer: 140, 240, then 270 and stays.
  assert.deepEqual(target.slice(0, 3), [140, 240, 270]);
  assert.ok(target.every((t) => t <= 270));
  assert.ok(Math.abs(lead.at(-1)!) <= 10, `lead ${lead.at(-1)}`);
});

test('the picture catches up: the hold shrinks by half its excess an update, and goes when not needed', () => {
  const delay = new SoundDelay();
  // 300 ms late for 10 updates, then 100 ms: 30 ms of hold needed.
  const { lead, target } = simulate(delay, (i) => (i < 10 ? 300 : 100), 40);
  assert.equal(target[9], 270);
  // Within a few seconds, not the 10 a 20 ms step took for these 200 ms.
  assert.ok(target[14]! <= 100, `target ${target.slice(10, 15).join(' ')}`);
  assert.ok(target.at(-1)! <= 70, `target ${target.at(-1)}`);
  // The sound never runs ahead meanwhile.
  assert.ok(lead.slice(10).every((l) => l <= 10), JSON.stringify(lead));
});

test('bounded', () => {
  const delay = new SoundDelay();
  for (let i = 0; i < 30; i++) delay.update(5000, Math.max(40, delay.targetMs));
  assert.equal(delay.targetMs, MAX_SOUND_DELAY_MS);
  assert.equal(delay.update(Number.NaN, 40), null);
});

test("the receiver's target: the floor without a hold, the hold above it", () => {
  const delay = new SoundDelay();
  assert.equal(delay.receiverTargetMs, SOUND_BUFFER_FLOOR_MS);
  simulate(delay, () => 400, 12);
  assert.ok(delay.targetMs > SOUND_BUFFER_FLOOR_MS);
  assert.equal(delay.receiverTargetMs, delay.targetMs);
  // The picture caught up: the hold goes, the floor stays.
  simulate(delay, () => 0, 30);
  assert.equal(delay.targetMs, 0);
  assert.equal(delay.receiverTargetMs, SOUND_BUFFER_FLOOR_MS);
});
