import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flow, scenario } from '../experiments/setup';
import { DEFAULT_QUEUE_LIMITS } from './pelsQueue';
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

test("frames flows with three renditions run the server's rendition choice: four on a narrow link move down, one alone on a wide one goes up", () => {
  const withRenditions = (startMs: number) => ({ ...flow('frames', startMs), renditions: 3 });
  // 600 kb/s of PELS for four flows: 150 each, below the top rendition's base rate (128 kb/s) with its margin.
  const narrow = runScenario(scenario(1, 30_000, 'rtcp', [0, 100, 200, 300].map(withRenditions), { capacityKbps: 1200 }));
  for (const f of narrow.flows) {
    assert.ok(f.rendition.switches >= 1, `switches ${f.rendition.switches}`);
    assert.ok(f.rendition.timeMs[0]! < f.rendition.timeMs[1]! + f.rendition.timeMs[2]!, `time per rendition ${f.rendition.timeMs.join()}`);
  }
  // A green queue deeper than the top rendition's keyframe (40 packets): the paper's 30 drop its tail at every move up, which fails it.
  const wide = runScenario(scenario(1, 30_000, 'rtcp', [withRenditions(0)], { limits: { ...DEFAULT_QUEUE_LIMITS, green: 60 } }));
  // It starts at the base rate, below the top rendition's need, and climbs back once the rate has been measured there.
  const alone = wide.flows[0]!.rendition;
  assert.equal(alone.current, 0);
  assert.ok(alone.timeMs[0]! > alone.timeMs[1]! + alone.timeMs[2]!, `time per rendition ${alone.timeMs.join()}`);
});
