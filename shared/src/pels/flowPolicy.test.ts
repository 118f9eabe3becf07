import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestEffortPolicy, fixedPolicy, pelsPolicy, type FlowDecision } from './flowPolicy';
import type { FrameInfo } from './frame';
import { syntheticFrames } from './syntheticStream';

const FRAMES = syntheticFrames({ seed: 5, keyframeInterval: 300 }, 30 * 60);
const SECONDS = FRAMES.length / 30;

test('fixed policy: everything sent, TID 0 and keyframes green, TID 1 yellow, TID 2 red', () => {
  const cases: Array<{ frame: FrameInfo; color: string }> = [
    { frame: { temporalId: 0, keyframe: true, bytes: 9000 }, color: 'green' },
    { frame: { temporalId: 0, keyframe: false, bytes: 6000 }, color: 'green' },
    { frame: { temporalId: 1, keyframe: false, bytes: 3500 }, color: 'yellow' },
    { frame: { temporalId: 2, keyframe: false, bytes: 2500 }, color: 'red' },
    { frame: { temporalId: 2, keyframe: false, bytes: 2500, layerSync: true }, color: 'red' },
  ];
  const policy = fixedPolicy();
  assert.equal(policy.kind, 'fixed');
  for (const { frame, color } of cases) assert.deepEqual(policy.decide(frame, 0), { send: true, color }, JSON.stringify(frame));
});

test('best-effort policy: rate-limited like PELS, each layer on its own stream, no coloring', () => {
  const control = { rateKbps: 1e6, gamma: 0.9 };
  const policy = bestEffortPolicy(control);
  assert.equal(policy.kind, 'best-effort');
  const layerColor = ['green', 'yellow', 'red'] as const;
  for (const f of FRAMES.slice(0, 40)) {
    const d = policy.decide(f, f.atMs);
    assert.ok(d.send);
    assert.equal(d.color, f.keyframe ? 'green' : layerColor[f.temporalId], 'gamma does not recolor');
  }
  // At a rate near the base layer, enhancement frames are dropped as in PELS.
  const low = bestEffortPolicy({ rateKbps: 1, gamma: 0 });
  const sent = FRAMES.slice(0, 300).filter((f) => low.decide(f, f.atMs).send);
  assert.ok(sent.every((f) => f.keyframe || f.temporalId === 0));
});

function runPels(rateKbps: number, gammaAt: (i: number) => number): { decisions: FlowDecision[]; kbps: number; redShare: number } {
  const control = { rateKbps, gamma: gammaAt(0) };
  const policy = pelsPolicy(control);
  assert.equal(policy.kind, 'pels');
  const decisions = FRAMES.map((f, i) => {
    control.gamma = gammaAt(i);
    return policy.decide(f, f.atMs);
  });
  let sent = 0;
  let enhancement = 0;
  let red = 0;
  FRAMES.forEach((f, i) => {
    const d = decisions[i]!;
    if (!d.send) return;
    sent += f.bytes;
    if (f.temporalId !== 0) enhancement += f.bytes;
    if (d.color === 'red') red += f.bytes;
  });
  return { decisions, kbps: (sent * 8) / 1000 / SECONDS, redShare: red / enhancement };
}

test('pels policy: the sent rate fits the MKC rate and red is the gamma share of sent enhancement bytes', () => {
  for (const rate of [500, 650, 800]) {
    for (const gamma of [0.1, 0.3, 0.7]) {
      const { decisions, kbps, redShare } = runPels(rate, () => gamma);
      assert.ok(Math.abs(kbps / rate - 1) < 0.03, `rate ${rate}: sent ${kbps.toFixed(1)}`);
      assert.ok(Math.abs(redShare - gamma) < 0.03, `rate ${rate} gamma ${gamma}: red ${redShare.toFixed(3)}`);
      FRAMES.forEach((f, i) => {
        if (f.temporalId === 0) assert.deepEqual(decisions[i], { send: true, color: 'green' });
      });
    }
  }
});

test('pels policy reads rate and gamma from the control state at every frame', () => {
  const control = { rateKbps: 10_000, gamma: 1 };
  const policy = pelsPolicy(control);
  const enhancement: FrameInfo = { temporalId: 2, keyframe: false, bytes: 2000 };
  policy.decide({ temporalId: 0, keyframe: true, bytes: 6000 }, 0);
  assert.deepEqual(policy.decide(enhancement, 33), { send: true, color: 'red' });
  control.gamma = 0;
  policy.decide({ temporalId: 1, keyframe: false, bytes: 2000 }, 66);
  assert.deepEqual(policy.decide(enhancement, 100), { send: true, color: 'yellow' });
  control.rateKbps = 0;
  assert.deepEqual(policy.decide({ temporalId: 0, keyframe: false, bytes: 6000 }, 133), { send: true, color: 'green' });
  assert.equal(policy.decide(enhancement, 166).send, false);
});
