import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flow, scenario } from '../experiments/setup';
import { runScenario, type ScenarioResult } from './scenario';

/** Everything a run measured, without wall-clock time. */
function fingerprint(r: ScenarioResult): unknown {
  return {
    events: r.events,
    feedback: r.routerFeedback,
    flows: r.flows.map((f) => ({ samples: f.samples, sent: f.sent, received: (['green', 'yellow', 'red'] as const).map((c) => f.receiver.received(c)) })),
    drops: Object.fromEntries(Object.entries(r.classes).map(([cls, s]) => [cls, s.drops.total(0, Number.POSITIVE_INFINITY).sum])),
  };
}

const params = (seed: number) => scenario(seed, 5_000, 'router', [flow('fgs'), flow('frames', 1_000), flow('fgs', 2_000, 40)]);

test('a run is deterministic for a seed and differs with another seed', () => {
  const a = fingerprint(runScenario(params(3)));
  assert.deepEqual(fingerprint(runScenario(params(3))), a);
  assert.notDeepEqual(fingerprint(runScenario(params(4))), a);
});

test('end-to-end feedback mode drives the same controllers from receiver loss reports', () => {
  const r = runScenario(scenario(1, 20_000, 'rtcp', [flow('fgs')]));
  const rates = r.flows[0]!.samples.map((s) => s.rateKbps);
  // Alone and under capacity, no loss: MKC adds alpha per report (1 s), from 128 kb/s.
  assert.ok(Math.abs(rates[rates.length - 1]! - (128 + 19 * 20)) <= 20, `rate ${rates[rates.length - 1]}`);
});
