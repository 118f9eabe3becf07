import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_MODES } from '../protocol/api';
import { flowMode, policyFor } from './flowMode';

test('each mode has its frame policy; rlm sends every frame on its layer\'s stream, whatever the rate', () => {
  const control = { rateKbps: 1, gamma: 1 };
  assert.equal(policyFor('pels', control).kind, 'pels');
  assert.equal(policyFor('best-effort', control).kind, 'best-effort');
  assert.equal(policyFor('nack', control).kind, 'best-effort');
  const rlm = policyFor('rlm', control);
  assert.equal(rlm.kind, 'fixed');
  // At 1 kb/s the other policies would skip; rlm sends a red frame as red.
  assert.deepEqual(rlm.decide({ temporalId: 2, keyframe: false, layerSync: false, bytes: 5000 }, 0), { send: true, color: 'red' });
});

test('every flow mode has its profile: only PELS marks colors and repairs, nack retransmits all, rlm is receiver-driven', () => {
  assert.deepEqual(FLOW_MODES.map((m) => flowMode(m).name), [...FLOW_MODES]);
  assert.deepEqual(FLOW_MODES.filter((m) => flowMode(m).marksColors), ['pels']);
  assert.deepEqual(FLOW_MODES.map((m) => flowMode(m).retransmission), ['repair', 'none', 'all', 'none']);
  assert.deepEqual(FLOW_MODES.filter((m) => flowMode(m).receiverDriven), ['rlm']);
});
