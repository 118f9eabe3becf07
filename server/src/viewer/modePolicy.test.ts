import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEMPORAL_PATTERN, type FrameInfo } from '@pels/shared/pels/frame';
import { policyFor, SwitchablePolicy } from './modePolicy';

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
