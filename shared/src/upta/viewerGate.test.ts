import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIEWER_GATE_DEFAULTS, ViewerGate, viewerGateErrors } from './viewerGate';

const params = { ...VIEWER_GATE_DEFAULTS, floorDb: 24 };

/** Feeds the same measurement every 250 ms from `fromMs` until `untilMs` (exclusive); returns the gate. */
function run(g: ViewerGate, fromMs: number, untilMs: number, fullDb: number | null, baseDb: number | null): ViewerGate {
  for (let t = fromMs; t < untilMs; t += 250) g.update({ nowMs: t, fullDb, baseDb });
  return g;
}

test('a viewer above the floor keeps every layer', () => {
  const g = run(new ViewerGate(params, 0), 0, 60_000, 30, 26);
  assert.equal(g.current.state, 'full');
  assert.deepEqual(g.sends, { base: true, enhancement: true });
});

test('dips below the floor shorter than the hold time do not toggle the viewer', () => {
  const g = new ViewerGate(params, 0);
  for (let t = 0; t < 60_000; t += 4000) {
    run(g, t, t + 2500, 20, 18); // 2.5 s below
    run(g, t + 2500, t + 4000, 30, 26);
  }
  assert.equal(g.current.state, 'full');
});

test('heavy loss: base only after the hold time, then nothing with a reason, and no packets but probes', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 2000, 30, 26); // settled
  run(g, 2000, 4750, 20, 18);
  assert.equal(g.current.state, 'full', 'not before 3 s below');
  run(g, 4750, 5250, 20, 18);
  assert.equal(g.current.state, 'baseOnly');
  assert.match(g.current.reason, /20\.0 dB, below the 24 dB floor/);
  assert.deepEqual(g.sends, { base: true, enhancement: false });
  const cutAt = g.current.sinceMs;
  run(g, 5250, cutAt + 2000 + 3000 + 250, 20, 18);
  assert.equal(g.current.state, 'paused');
  assert.match(g.current.reason, /unintelligible/);
  assert.deepEqual(g.sends, { base: false, enhancement: false });
  // Probes of the base layer keep coming while the path stays bad, and it stays paused.
  const pausedAt = g.current.sinceMs;
  let probing = 0;
  for (let t = pausedAt; t < pausedAt + 40_000; t += 250) {
    g.update({ nowMs: t, fullDb: g.sends.base ? 20 : null, baseDb: g.sends.base ? 18 : null });
    if (g.current.probing) probing += 250;
  }
  assert.equal(g.current.state, 'paused');
  assert.ok(probing >= 2 * params.probeMs && probing <= 3 * params.probeMs, `probed ${probing} ms`);
});

test('a paused viewer comes back when the path recovers: a probe, base only, then every layer', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 20_000, 20, 18);
  assert.equal(g.current.state, 'paused');
  let t = 20_000;
  // The loss stops: the next probe sees the base layer clean.
  for (; t < 40_000 && g.current.state === 'paused'; t += 250) g.update({ nowMs: t, fullDb: g.sends.base ? 30 : null, baseDb: g.sends.base ? 26 : null });
  assert.equal(g.current.state, 'baseOnly');
  assert.match(g.current.reason, /recovered/);
  for (; t < 80_000 && g.current.state === 'baseOnly'; t += 250) g.update({ nowMs: t, fullDb: 30, baseDb: 26 });
  assert.equal(g.current.state, 'full');
  assert.ok(t - 20_000 <= params.probeEveryMs + params.probeMs + params.settleMs + params.retryMs + 1000, `took ${t - 20_000} ms`);
});

test('a step up to full that falls back doubles the wait before the next', () => {
  const g = new ViewerGate(params, 0);
  // Congestion: all layers do not fit, the base layer alone does.
  const times: number[] = [];
  let last = g.current.state;
  for (let t = 0; t < 200_000; t += 250) {
    g.update({ nowMs: t, fullDb: g.sends.enhancement ? 20 : 30, baseDb: 26 });
    if (g.current.state !== last && g.current.state === 'full') times.push(t);
    last = g.current.state;
  }
  assert.ok(times.length >= 3, `${times}`);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  assert.ok(gaps[1]! > gaps[0]! * 1.5, `gaps ${gaps}`);
  assert.ok(g.current.state !== 'paused', 'the base layer fits: never paused');
});

test('a source whose base layer alone scores below the floor: its viewer is not paused while the path carries all layers well', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 9000, 20, 15); // cut to the base layer by loss
  assert.equal(g.current.state, 'baseOnly');
  run(g, 9000, 40_000, 30, 15); // the loss stops: the base layer alone still scores 15 dB
  assert.equal(g.current.state, 'full');
});

test('bad parameters are named', () => {
  assert.deepEqual(viewerGateErrors(params), []);
  assert.match(viewerGateErrors({ ...params, floorDb: 0 }).join(), /floorDb/);
  assert.match(viewerGateErrors({ ...params, probeMs: 1000 }).join(), /probeMs/);
  assert.throws(() => new ViewerGate({ ...params, holdMs: -1 }, 0), RangeError);
});

test('behind a long round trip a probe measures later and longer: the loss that shows 6 s in keeps the viewer paused', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 20_000, 20, 18);
  let t = 20_000;
  for (; !g.current.probing; t += 250) g.update({ nowMs: t, fullDb: null, baseDb: null, rttMs: 2000 });
  const start = t;
  for (; g.current.probing; t += 250) g.update({ nowMs: t, fullDb: t - start < 6000 ? 30 : 17, baseDb: t - start < 6000 ? 26 : 16, rttMs: 2000 });
  assert.equal(g.current.state, 'paused');
  assert.equal(t - start, params.probeMs + 2 * 2000, 'the probe lasted 4 s longer');
});

test('a probe that looks good at first but shows the loss before its end does not bring the viewer back', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 20_000, 20, 18);
  assert.equal(g.current.state, 'paused');
  let t = 20_000;
  for (; !g.current.probing; t += 250) g.update({ nowMs: t, fullDb: null, baseDb: null });
  const start = t;
  // Behind a deep queue the first reports show no loss; the loss shows 4 s in.
  for (; t < start + params.probeMs + 1000; t += 250) g.update({ nowMs: t, fullDb: t - start < 4000 ? 30 : 17, baseDb: t - start < 4000 ? 26 : 16 });
  assert.equal(g.current.state, 'paused');
  assert.equal(g.current.probing, false);
});

test('a clean probe brings the viewer back however its measurements come: irregular (they follow receiver reports), some not measured (too few packets yet)', () => {
  const g = new ViewerGate(params, 0);
  run(g, 0, 20_000, 20, 18);
  assert.equal(g.current.state, 'paused');
  let t = 20_000;
  const gaps = [1000, 1200, 800, 1100, 900, 1300, 700];
  for (let i = 0; t < 60_000 && g.current.state === 'paused'; i++) {
    const measured = g.sends.base && i % 3 !== 0;
    g.update({ nowMs: t, fullDb: measured ? 30 : null, baseDb: measured ? 26 : null });
    t += gaps[i % gaps.length]!;
  }
  assert.equal(g.current.state, 'baseOnly');
  assert.ok(t - 20_000 <= params.probeEveryMs + params.probeMs + 2000, `took ${t - 20_000} ms`);
});
