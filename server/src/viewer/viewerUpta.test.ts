/**
 * A viewer's UPTA state against a real mediasoup worker: on with UPTA, off
 * without it and for a viewer that chooses its own layers (rlm).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIEWER_GATE_DEFAULTS } from '@pels/shared/upta/viewerGate';
import { realMedia } from './realMediaForTests';
import { ViewerSession } from './viewerSession';

const env = realMedia();
const upta = { params: { ...VIEWER_GATE_DEFAULTS, floorDb: 20 }, model: () => null };

test('with UPTA a viewer starts with every layer; without it, or in rlm, it has no UPTA state', async (t) => {
  const router = await env.media.createRouter();
  t.after(() => router.close());
  const on = await ViewerSession.create(env.viewerOptions(router, 'on', { stream: { upta } }));
  const off = await ViewerSession.create(env.viewerOptions(router, 'off'));
  const rlm = await ViewerSession.create(env.viewerOptions(router, 'rlm', { stream: { upta }, mode: 'rlm' }));
  t.after(() => [on, off, rlm].forEach((v) => v.close()));
  const state = on.state().upta;
  assert.equal(state?.state, 'full');
  assert.equal(state?.probing, false);
  assert.equal(state?.expectedDb, null, 'nothing measured yet');
  assert.ok(Date.parse(state!.since) <= Date.now());
  assert.equal(off.state().upta, null);
  assert.equal(rlm.state().upta, null);
});
