import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCapacityStep, scheduleCapacitySteps } from './capacitySteps';

test('a step is SECONDS:KBPS', () => {
  assert.deepEqual(parseCapacityStep('20:400'), { atS: 20, kbps: 400 });
  assert.deepEqual(parseCapacityStep('2.5:2000'), { atS: 2.5, kbps: 2000 });
  assert.throws(() => parseCapacityStep('400'), /SECONDS:KBPS/);
  assert.throws(() => parseCapacityStep('10:10'), /\[64, 1000000\]/);
});

test('steps are applied at their times; cancel stops the rest', async () => {
  const applied: number[] = [];
  const cancel = scheduleCapacitySteps([{ atS: 0.05, kbps: 400 }, { atS: 0.01, kbps: 2000 }, { atS: 5, kbps: 64 }], async (s) => void applied.push(s.kbps), (err) => assert.fail(String(err)));
  await new Promise((r) => setTimeout(r, 150));
  cancel();
  assert.deepEqual(applied, [2000, 400]);
});
