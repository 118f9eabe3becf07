import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BottleneckFeedbackInput } from '@pels/shared/control/input';
import { BottleneckFeedbackHub } from './bottleneckFeedbackHub';

test("each router's samples reach the viewers pooled over 500 ms, stepped from the rate at the pool's start", () => {
  const inputs: BottleneckFeedbackInput[] = [];
  const hub = new BottleneckFeedbackHub((fn) => fn({ onRouterFeedback: (input) => inputs.push(input) }));
  for (let epoch = 1; epoch <= 5; epoch++) {
    hub.apply({ routerId: 'r1', epoch, p: epoch % 2 ? -1 : 0.5, intervalMs: 100, offeredKbps: epoch % 2 ? 400 : 2000, capacityKbps: 1000 }, 1000 + 100 * epoch);
  }
  // Another router pools on its own.
  hub.apply({ routerId: 'r2', epoch: 1, p: 0.2, intervalMs: 500, offeredKbps: 1250, capacityKbps: 1000 }, 1500);
  assert.equal(inputs.length, 2);
  // 400 + 2000 + 400 + 2000 + 400 = 5200 offered against 5000.
  assert.equal(inputs[0]!.epoch, 5);
  assert.ok(Math.abs(inputs[0]!.lossFraction - 200 / 5200) < 1e-12);
  assert.equal(inputs[0]!.sentAtMs, 1000);
  assert.equal(inputs[0]!.origin, 'r1');
  assert.equal(inputs[1]!.origin, 'r2');
  assert.ok(Math.abs(inputs[1]!.lossFraction - 0.2) < 1e-12);
  // The dashboard shows the latest sample as the router sent it.
  assert.equal(hub.state()?.routerId, 'r2');
});
