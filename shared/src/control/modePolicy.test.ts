import assert from 'node:assert/strict';
import { test } from 'node:test';
import { policyFor } from './modePolicy';

test('each mode has its frame policy; rlm sends every frame on its layer\'s stream, whatever the rate', () => {
  const control = { rateKbps: 1, gamma: 1 };
  assert.equal(policyFor('pels', control).mode, 'pels');
  assert.equal(policyFor('best-effort', control).mode, 'best-effort');
  assert.equal(policyFor('nack', control).mode, 'best-effort');
  const rlm = policyFor('rlm', control);
  assert.equal(rlm.mode, 'fixed');
  // At 1 kb/s the other policies would skip; rlm sends a red frame as red.
  assert.deepEqual(rlm.decide({ temporalId: 2, keyframe: false, layerSync: false, bytes: 5000 }, 0), { send: true, color: 'red' });
});
