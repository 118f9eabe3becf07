import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { FAULT_KINDS, faultSchedule } from './faultSchedule';

test('every kind at least once in any 5 minutes, outside the warm-up and the drain, in time order', () => {
  for (const seed of [1, 2, 3]) {
    const s = faultSchedule({ seconds: 1800, warmupS: 60, drainS: 60, periodS: 300, random: mulberry32(seed) });
    assert.ok(s.every((f, i) => i === 0 || f.atS > s[i - 1]!.atS));
    assert.ok(s[0]!.atS >= 60 && s.at(-1)!.atS <= 1740);
    for (let from = 60; from + 300 <= 1740; from += 10) {
      const seen = new Set(s.filter((f) => f.atS >= from && f.atS < from + 300).map((f) => f.kind));
      assert.equal(seen.size, FAULT_KINDS.length, `seed ${seed}: window from ${from} s has ${[...seen].join(',')}`);
    }
  }
});

test('faults are spread: at least half a slot apart', () => {
  const s = faultSchedule({ seconds: 600, warmupS: 30, drainS: 30, periodS: 300, random: mulberry32(7) });
  const periods = Math.ceil(540 / ((300 * 14) / 15));
  const slot = 540 / periods / FAULT_KINDS.length;
  for (let i = 1; i < s.length; i++) assert.ok(s[i]!.atS - s[i - 1]!.atS >= slot / 2 - 0.1, `${s[i - 1]!.atS} then ${s[i]!.atS}`);
});

test('a short run still gets every kind once; the same seed gives the same schedule', () => {
  const a = faultSchedule({ seconds: 120, warmupS: 25, drainS: 15, periodS: 300, random: mulberry32(5) });
  assert.deepEqual(new Set(a.map((f) => f.kind)), new Set(FAULT_KINDS));
  assert.deepEqual(a, faultSchedule({ seconds: 120, warmupS: 25, drainS: 15, periodS: 300, random: mulberry32(5) }));
  assert.notDeepEqual(a, faultSchedule({ seconds: 120, warmupS: 25, drainS: 15, periodS: 300, random: mulberry32(6) }));
});

test('no room: no faults', () => {
  assert.deepEqual(faultSchedule({ seconds: 60, warmupS: 40, drainS: 30, periodS: 300, random: mulberry32(1) }), []);
});
