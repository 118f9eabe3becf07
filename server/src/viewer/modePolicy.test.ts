import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMPORAL_PATTERN, type FrameInfo } from '@pels/shared/pels/frame';
import { dscpFor, modeSwitchRefusal, policyFor, retransmittedColors, SwitchablePolicy } from './modePolicy';

// A rate far above the stream's, so every frame is sent and only the coloring differs; gamma 1: PELS makes all enhancement red.
const control = { rateKbps: 100_000, gamma: 1 };
const frames: FrameInfo[] = Array.from({ length: 16 }, (_, i) => ({ temporalId: TEMPORAL_PATTERN[i % 4]!, keyframe: i === 0, bytes: 1000 }));

test('switching the mode changes the coloring from the next frame on, and the reported mode', () => {
  const policy = new SwitchablePolicy(policyFor('pels', control));
  assert.equal(policy.mode, 'pels');
  const pels = frames.slice(0, 8).map((f, i) => policy.decide(f, i * 33));
  assert.ok(pels.every((d) => d.send));
  assert.deepEqual([...new Set(pels.filter((_, i) => i % 4 !== 0).map((d) => d.color))], ['red']);

  policy.use(policyFor('best-effort', control));
  assert.equal(policy.mode, 'best-effort');
  const be = frames.slice(8).map((f, i) => policy.decide(f, (8 + i) * 33));
  assert.ok(be.every((d) => d.send));
  assert.deepEqual(be.slice(0, 4).map((d) => d.color), ['green', 'red', 'yellow', 'red']);
});

test('PELS retransmits green only and colors the marks; best effort retransmits nothing; nack retransmits all, marked alike', () => {
  assert.deepEqual(retransmittedColors('pels'), ['green']);
  assert.deepEqual(retransmittedColors('best-effort'), []);
  assert.deepEqual(retransmittedColors('nack'), ['green', 'yellow', 'red']);
  assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor('pels', c as 'green')), [34, 36, 38]);
  for (const mode of ['best-effort', 'nack'] as const) assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor(mode, c as 'green')), [0, 0, 0]);
  // nack selects frames as best effort does.
  assert.equal(policyFor('nack', control).mode, 'best-effort');
});

test('after consume a switch to or from nack is refused with a reason; PELS and best effort switch freely', () => {
  assert.equal(modeSwitchRefusal('pels', 'best-effort', true), null);
  assert.equal(modeSwitchRefusal('best-effort', 'pels', true), null);
  assert.equal(modeSwitchRefusal('nack', 'nack', true), null);
  assert.match(modeSwitchRefusal('pels', 'nack', true)!, /to nack: retransmission is set when the viewer starts consuming/);
  assert.match(modeSwitchRefusal('nack', 'best-effort', true)!, /from nack/);
  // Before consume the mode in force at consume decides: any switch goes.
  assert.equal(modeSwitchRefusal('pels', 'nack', false), null);
  assert.equal(modeSwitchRefusal('nack', 'pels', false), null);
});

test('rlm sends every frame on its layer\'s stream, unmarked and not retransmitted; a consuming viewer cannot switch to or from it', () => {
  assert.equal(policyFor('rlm', control).mode, 'fixed');
  assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor('rlm', c as 'green')), [0, 0, 0]);
  assert.deepEqual(retransmittedColors('rlm'), []);
  assert.match(modeSwitchRefusal('pels', 'rlm', true)!, /to rlm/);
  assert.match(modeSwitchRefusal('rlm', 'best-effort', true)!, /from rlm/);
  assert.equal(modeSwitchRefusal('pels', 'rlm', false), null);
});
