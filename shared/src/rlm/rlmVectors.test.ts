import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RlmReceiver } from './rlm';
import { applyEvent, checkOf, fixedRandom, VECTORS_FILE, type RlmCase } from './rlmVectors';

const { cases } = JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as { cases: RlmCase[] };

test('the shared vectors cover joins, backed-off experiments and drops', () => {
  assert.equal(cases.length, 4);
  for (const c of cases) {
    const end = c.checks.at(-1)!;
    assert.ok(end.adds > 0 && end.drops > 0, `${c.name}: adds ${end.adds}, drops ${end.drops}`);
  }
});

for (const c of cases) {
  test(`RLM replays the shared vector: ${c.name}`, () => {
    const r = new RlmReceiver(c.params, fixedRandom(c.random), c.startMs);
    let next = 0;
    c.events.forEach((e, i) => {
      applyEvent(r, e);
      while (c.checks[next]?.after === i + 1) {
        const want = c.checks[next++]!;
        const got = checkOf(r, i + 1);
        for (const k of ['nextWakeMs', 'detectMs', 'detectVarMs'] as const) assert.ok(Math.abs(got[k] - want[k]) < 1e-6, `${k} after input ${i + 1}: ${got[k]} vs ${want[k]}`);
        got.joinTimerMs.forEach((v, k) => assert.ok(Math.abs(v - want.joinTimerMs[k]!) < 1e-6, `join timer ${k + 1} after input ${i + 1}`));
        assert.deepEqual({ ...got, nextWakeMs: 0, detectMs: 0, detectVarMs: 0, joinTimerMs: [] }, { ...want, nextWakeMs: 0, detectMs: 0, detectVarMs: 0, joinTimerMs: [] }, `after input ${i + 1}`);
      }
    });
    assert.equal(next, c.checks.length);
  });
}
