import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkFigures, isMove, spreads } from './baseline';
import { figuresOf } from './figures';

test('figures: every number of a row, named by the fields that say what was measured; repeats of a cell averaged; context left out', () => {
  const output = {
    benchmark: 'pels-scale',
    rows: [
      { viewers: 10, run: 1, capacityKbps: 6000, jain: 0.9, rateRatio: { mean: 1, min: 0.8, max: null }, loadAverage: [3, 4], receiverLoss: { green: 0 } },
      { viewers: 10, run: 2, capacityKbps: 6000, jain: 0.7, rateRatio: { mean: 1.2, min: 0.6, max: 1.3 }, loadAverage: [5, 6], receiverLoss: { green: 0 } },
      { viewers: 20, run: 1, capacityKbps: 12000, jain: 0.8, rateRatio: { mean: null, min: null, max: null }, loadAverage: null, receiverLoss: { green: 0.01 } },
    ],
  };
  const f = figuresOf(output);
  assert.equal(f['viewers=10 jain'], 0.8);
  assert.equal(f['viewers=10 rateRatio.mean'], 1.1);
  assert.equal(f['viewers=10 rateRatio.max'], 1.3, 'a null in one repeat: the others');
  assert.equal(f['viewers=20 receiverLoss.green'], 0.01);
  assert.equal('viewers=20 rateRatio.mean' in f, false, 'null is no figure');
  assert.deepEqual(Object.keys(f).filter((k) => /run|capacityKbps|loadAverage/.test(k)), []);
});

test('figures: arrays by index, the encoder by pipeline over its repeats; an unknown output is refused', () => {
  const conv = figuresOf({ benchmark: 'convergence', rows: [{ viewers: 2, feedback: 'router', capacityKbps: 1400, stationaryKbps: 740, secondsTo90: 12, steadyKbps: [700, 690], ratio: 0.94, jain: 1, fps: [29, 30] }] });
  assert.deepEqual(conv, { 'viewers=2 feedback=router secondsTo90': 12, 'viewers=2 feedback=router steadyKbps.0': 700, 'viewers=2 feedback=router steadyKbps.1': 690, 'viewers=2 feedback=router ratio': 0.94, 'viewers=2 feedback=router jain': 1, 'viewers=2 feedback=router fps.0': 29, 'viewers=2 feedback=router fps.1': 30 });
  const enc = figuresOf({ benchmark: 'encoder', runs: [{ pipeline: 'ffmpeg', repeat: 1, cpuSeconds: { total: 4 }, kbps: 900 }, { pipeline: 'ffmpeg', repeat: 2, cpuSeconds: { total: 6 }, kbps: 1100 }] });
  assert.deepEqual(enc, { 'pipeline=ffmpeg cpuSeconds.total': 5, 'pipeline=ffmpeg kbps': 1000 });
  assert.throws(() => figuresOf({ benchmark: 'nope', rows: [] }), /not the output of a known benchmark/);
  assert.throws(() => figuresOf({ benchmark: 'loss' }), /no rows/);
});

test('spreads: median, least and most of each figure over the runs', () => {
  const s = spreads([{ a: 3, b: 1 }, { a: 1 }, { a: 2, b: 5 }]);
  assert.deepEqual(s.a, { median: 2, min: 1, max: 3, values: [3, 1, 2] });
  assert.deepEqual(s.b, { median: 3, min: 1, max: 5, values: [1, 5] });
});

test('check: a figure outside the spread moved, above or below; a margin widens the spread by a share of the median; a missing figure moved, a new one did not', () => {
  const base = spreads([{ fps: 28, loss: 0.02, gone: 1 }, { fps: 30, loss: 0.03, gone: 1 }, { fps: 29, loss: 0.025, gone: 1 }]);
  const checks = checkFigures(base, { fps: 25, loss: 0.031, fresh: 7 });
  assert.deepEqual(
    checks.map((c) => [c.name, c.verdict]),
    [['fps', 'below'], ['fresh', 'new'], ['gone', 'missing'], ['loss', 'above']],
  );
  assert.deepEqual(checks.filter(isMove).map((c) => c.name), ['fps', 'gone', 'loss']);
  const wide = checkFigures(base, { fps: 25, loss: 0.031, gone: 1 }, 0.05);
  assert.deepEqual(wide.map((c) => c.verdict), ['below', 'within', 'within'], 'fps 25 < 28 - 0.05 x 29; loss 0.031 <= 0.03 + 0.05 x 0.025');
  assert.throws(() => checkFigures(base, {}, -1), /margin/);
});

test('npm run bench -- check without a baseline, or of an unknown benchmark, says so and exits 2', () => {
  const main = join(import.meta.dirname, 'main.ts');
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { encoding: 'utf8', cwd: import.meta.dirname });
  const unknown = run('check', 'nope');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /a benchmark name: capacity, convergence/);
  const few = run('baseline', 'encoder', '--times', '2');
  assert.equal(few.status, 2);
  assert.match(few.stderr, /--times: 3 or more/);
});
