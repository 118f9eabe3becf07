import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityAt, orderSteps, parseCapacityStep } from './capacitySteps';

test('SECONDS:KBPS within the run, at a capacity the router can shape', () => {
  assert.deepEqual(parseCapacityStep('20:1000', 60), { atS: 20, kbps: 1000 });
  assert.deepEqual(parseCapacityStep(' 7.5:640.5 ', 60), { atS: 7.5, kbps: 640.5 });
  assert.throws(() => parseCapacityStep('20', 60), /SECONDS:KBPS, e\.g\. 20:1000; got "20"/);
  assert.throws(() => parseCapacityStep('60:1000', 60), /within the run \(0, 60\) s/);
  assert.throws(() => parseCapacityStep('10:10', 60), /\[64, 1000000\] kb\/s/);
});

test('steps apply in time order, each from its time on', () => {
  const steps = orderSteps([{ atS: 30, kbps: 3000 }, { atS: 10, kbps: 1000 }]);
  assert.deepEqual(steps.map((s) => s.atS), [10, 30]);
  assert.deepEqual([0, 9, 10, 29, 30, 59].map((t) => capacityAt(2000, steps, t)), [2000, 2000, 1000, 1000, 3000, 3000]);
  assert.throws(() => orderSteps([{ atS: 10, kbps: 1000 }, { atS: 10, kbps: 500 }]), /two --capacity-step at 10 s/);
});
