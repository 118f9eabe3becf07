import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DispersionMeter, FUZZY_DEFAULTS, FuzzyController, fuzzyRateFactor, membership } from './fuzzy';

test('membership: triangles, and shoulders at the ends of the universe', () => {
  assert.ok(Math.abs(membership([0, 0.05, 0.15], 0.1) - 0.5) < 1e-12);
  assert.equal(membership([0, 0.05, 0.15], 0.2), 0);
  assert.equal(membership(FUZZY_DEFAULTS.congestion.zero, -3), 1);
  assert.equal(membership(FUZZY_DEFAULTS.congestion.large, 5), 1);
});

test('inference: an idle path raises the rate, a growing queue cuts it hard', () => {
  assert.ok(Math.abs(fuzzyRateFactor(0, 0) - 1.03) < 1e-9, 'ZERO and STEADY fire UP alone');
  assert.ok(Math.abs(fuzzyRateFactor(0, -0.1) - 1.06) < 1e-9, 'ZERO and FALLING: BIG_UP');
  assert.ok(Math.abs(fuzzyRateFactor(0.5, 0.1) - 0.7) < 1e-9, 'LARGE and RISING: BIG_DOWN');
  const mixed = fuzzyRateFactor(0.1, 0);
  assert.ok(mixed > 0.85 && mixed < 1, `SMALL/MEDIUM and STEADY, between DOWN and HOLD: ${mixed}`);
});

test('the dispersion meter compares arrival with send gaps of consecutive packets', () => {
  const m = new DispersionMeter();
  // Sent every 2 ms, delivered every 2.5 ms (a queue building); 3 is lost, so the pairs (2, 4) and (3, 4) do not count.
  for (const s of [0, 1, 2, 4, 5]) m.add(s, 2 * s, 10 + 2.5 * s);
  const r = m.report(40);
  assert.equal(r.pairs, 3);
  assert.ok(Math.abs(r.ratio - 0.25) < 1e-12);
  assert.deepEqual(m.report(80), { kind: 'dispersion', ratio: 0, pairs: 0, atMs: 80 });
});

/**
 * One flow through a bottleneck that delivers C: while the flow sends above
 * C, arrival gaps are r / C times the send gaps; below, the path keeps up.
 */
function track(c: FuzzyController, capacityKbps: number, fromMs: number, periods: number): number[] {
  const rates: number[] = [];
  for (let k = 1; k <= periods; k++) {
    c.onFeedback({ kind: 'dispersion', ratio: Math.max(0, c.rateKbps / capacityKbps - 1), pairs: 18, atMs: fromMs + 40 * k });
    rates.push(c.rateKbps);
  }
  return rates;
}

test('in a closed loop the rate climbs to the capacity and settles below it by the safety margin', () => {
  const c = new FuzzyController({ initialKbps: 200, minKbps: 10, maxKbps: 10_000 });
  const rates = track(c, 2000, 0, 500);
  const tail = rates.slice(-100);
  const mean = tail.reduce((a, b) => a + b, 0) / tail.length;
  assert.ok(mean > 1800 && mean < 2200, `mean ${mean}`);
  // After a step down to 1000 kb/s it is near the new rate within 2 s.
  const after = track(c, 1000, 20_000, 50);
  assert.ok(after[after.length - 1]! > 900 && after[after.length - 1]! < 1050, `${after[after.length - 1]}`);
});

test('rises add the same to every rate and cuts scale with it, so rates that start apart draw together', () => {
  const a = new FuzzyController({ initialKbps: 100, minKbps: 10, maxKbps: 10_000 });
  const b = new FuzzyController({ initialKbps: 1500, minKbps: 10, maxKbps: 10_000 });
  const feed = (ratio: number, atMs: number): void => {
    for (const c of [a, b]) c.onFeedback({ kind: 'dispersion', ratio, pairs: 18, atMs });
  };
  feed(0, 40);
  assert.equal(b.rateKbps - a.rateKbps, 1400, 'an equal rise');
  const before = a.rateKbps / b.rateKbps;
  feed(0.5, 80);
  assert.ok(Math.abs(a.rateKbps / b.rateKbps - before) < 1e-12, 'an equal factor');
  assert.ok(a.rateKbps / b.rateKbps > 100 / 1500);
});

test('feedback without pairs or of another kind is ignored; a late report applies the increase per period', () => {
  const c = new FuzzyController({ initialKbps: 100, minKbps: 10, maxKbps: 10_000 });
  c.onFeedback({ kind: 'dispersion', ratio: 0, pairs: 0, atMs: 40 });
  c.onFeedback({ kind: 'rtcp', epoch: 1, lossFraction: 0.1, atMs: 40 });
  assert.equal(c.rateKbps, 100);
  assert.deepEqual(c.feedbackCounts, { used: 0, ignored: 2 });
  c.onFeedback({ kind: 'dispersion', ratio: 0, pairs: 5, atMs: 40 });
  c.onFeedback({ kind: 'dispersion', ratio: 0, pairs: 5, atMs: 440 });
  // 40 ms then 400 ms (10 periods) of UP: +15 kb/s per period.
  assert.ok(Math.abs(c.rateKbps - (100 + 11 * 0.03 * 500)) < 1e-6, `${c.rateKbps}`);
});
