import { test } from 'node:test';
import assert from 'node:assert/strict';
import { delaysExperiment } from './delays';

const result = delaysExperiment.run({ seed: 1, short: true });

test('strict priority: green waits less than yellow, yellow far less than red, in every phase (Figs. 8, 9 left)', () => {
  assert.equal(result.summary.length, 3);
  for (const s of result.summary) {
    const [g, y, r] = [s.greenMs as number, s.yellowMs as number, s.redMs as number];
    assert.ok(g < y && 10 * y < r, `${s.flows} flows: green ${g}, yellow ${y}, red ${r} ms`);
    assert.equal(s.yellowLoss, 0);
  }
});

test('red waits as long as a full red queue takes to drain', () => {
  for (const s of result.summary) {
    const ratio = (s.redMs as number) / (s.fullQueueRedMs as number);
    assert.ok(ratio > 0.8 && ratio < 1.2, `${s.flows} flows: measured ${s.redMs} vs ${s.fullQueueRedMs} ms`);
  }
});
