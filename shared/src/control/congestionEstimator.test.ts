import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Color } from '../pels/color';
import { mulberry32 } from '../pels/syntheticStream';
import type { CongestionState } from '../protocol/api';
import { CongestionEstimator, excessLoss, type LossStep } from './congestionEstimator';
import { ControlCore } from './controlCore';
import { parseRecording } from './recording';

/** Packets per one-second step at a 1000 kb/s stream: green 25, yellow 40, red 30. */
const PACKETS: Record<Color, number> = { green: 25, yellow: 40, red: 30 };

/** A trace: each step's packets of each color lost with its own probability (binomial, seeded), and the step's round trip. */
function trace(steps: number, lossOf: (k: number) => Record<Color, number>, rttOf: (k: number) => number, seed = 7): LossStep[] {
  const rand = mulberry32(seed);
  const out: LossStep[] = [];
  for (let k = 0; k < steps; k++) {
    const p = lossOf(k);
    const intervals: LossStep['intervals'] = {};
    for (const c of ['green', 'yellow', 'red'] as const) {
      let lost = 0;
      for (let i = 0; i < PACKETS[c]; i++) if (rand() < p[c]) lost++;
      intervals[c] = { expected: PACKETS[c], lost };
    }
    out.push({ atMs: k * 1000, intervals, rttMs: rttOf(k) });
  }
  return out;
}

function run(steps: readonly LossStep[]): CongestionState[] {
  const e = new CongestionEstimator();
  return steps.map((s) => e.update(s)!);
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const share = (states: readonly CongestionState[], d: CongestionState['diagnosis']) => states.filter((s) => s.diagnosis === d).length / states.length;
const all = (p: number) => ({ green: p, yellow: p, red: p });

test('random loss on every color alike is wire loss: the congestion read is near 0 where the raw loss is 10%', () => {
  const states = run(trace(120, () => all(0.1), () => 20));
  const settled = states.slice(10);
  assert.ok(mean(settled.map((s) => s.measuredLoss!)) > 0.08, 'the reports do show the loss');
  // Well below the 4% at which eq. 8 (alpha 20, beta 0.5) stops climbing at 1000 kb/s.
  assert.ok(mean(settled.map((s) => s.congestion!)) < 0.015, `congestion ${mean(settled.map((s) => s.congestion!))}`);
  assert.ok(Math.abs(settled.at(-1)!.wireLoss! - 0.1) < 0.04, `wire loss ${settled.at(-1)!.wireLoss}`);
  assert.ok(share(settled, 'wire-loss') > 0.8, `wire-loss diagnosed in ${share(settled, 'wire-loss')}`);
});

test('at 20% random loss too', () => {
  const settled = run(trace(120, () => all(0.2), () => 20, 11)).slice(10);
  assert.ok(mean(settled.map((s) => s.congestion!)) < 0.015, `congestion ${mean(settled.map((s) => s.congestion!))}`);
});

test('a PELS router drops red before yellow and spares green: the enhancement loss is congestion', () => {
  const settled = run(trace(60, () => ({ green: 0, yellow: 0.02, red: 0.25 }), () => 20)).slice(5);
  const pooled = (0.02 * 40 + 0.25 * 30) / 70;
  assert.ok(Math.abs(mean(settled.map((s) => s.congestion!)) - pooled) < 0.02, `congestion ${mean(settled.map((s) => s.congestion!))} vs ${pooled}`);
  assert.ok(share(settled, 'congestion') > 0.9);
  assert.equal(settled.at(-1)!.wireLoss, 0);
});

test('a PELS router with wire loss as well: the wire part is taken out, the router part stays', () => {
  // 5% on the wire for every color, then the router drops 20% of the red and 2% of the yellow that passed.
  const wire = 0.05;
  const through = (d: number) => 1 - (1 - wire) * (1 - d);
  const settled = run(trace(200, () => ({ green: wire, yellow: through(0.02), red: through(0.2) }), () => 20, 3)).slice(20);
  const router = (0.02 * 40 + 0.2 * 30) / 70;
  const read = mean(settled.map((s) => s.congestion!));
  assert.ok(read > router * 0.6 && read < router * 1.3, `congestion ${read} vs the router's ${router}`);
  assert.ok(Math.abs(settled.at(-1)!.wireLoss! - wire) < 0.03, `wire ${settled.at(-1)!.wireLoss}`);
});

test('a drop-tail FIFO drops every color alike, but its queue shows in the round trip: that loss is congestion', () => {
  // 30 s of 5% wire loss on an empty queue, then the queue fills (round trip up by 400 ms) and drops 10% more.
  const fifo = trace(60, (k) => (k < 30 ? all(0.05) : all(1 - 0.95 * 0.9)), (k) => (k < 30 ? 10 : 410), 5);
  const states = run(fifo);
  const queued = states.slice(33);
  assert.ok(queued.every((s) => s.diagnosis === 'congestion'));
  assert.ok(queued.every((s) => s.queueDelayMs! >= 399));
  // At least the queue's price and about the drops beyond the wire's 5%.
  assert.ok(mean(queued.map((s) => s.congestion!)) >= 0.1, `congestion ${mean(queued.map((s) => s.congestion!))}`);
  assert.ok(Math.abs(states.at(-1)!.wireLoss! - 0.05) < 0.03, 'the FIFO\'s drops are not learned as wire loss');
});

test('a queue without loss is priced: the controller backs off before a FIFO overflows', () => {
  const states = run(trace(20, () => all(0), (k) => (k < 10 ? 5 : 5 + 180), 1));
  assert.equal(states[5]!.congestion, 0);
  assert.equal(states[19]!.diagnosis, 'congestion');
  assert.ok(Math.abs(states[19]!.congestion! - 0.1) < 1e-9, `price ${states[19]!.congestion}`);
});

test('a busy receiver\'s late reports, one or two at a time, are no queue', () => {
  const late = new Set([12, 20, 21, 30]);
  const states = run(trace(40, () => all(0), (k) => (late.has(k) ? 600 : 8), 2));
  assert.ok(states.every((s) => s.congestion === 0 && s.diagnosis === 'clear'), JSON.stringify(states.filter((s) => s.diagnosis !== 'clear')));
});

test('the base layer lost beyond the wire is the link below the base layer', () => {
  const e = new CongestionEstimator();
  e.update({ atMs: 0, intervals: { green: { expected: 100, lost: 0 }, yellow: { expected: 100, lost: 0 } } });
  // A first report's one of two: not a floor.
  assert.equal(e.update({ atMs: 500, intervals: { green: { expected: 2, lost: 1 }, yellow: { expected: 10, lost: 0 } } })!.baseCongestion, 0);
  const s = e.update({ atMs: 4000, intervals: { green: { expected: 100, lost: 30 }, yellow: { expected: 100, lost: 100 } } })!;
  // 30% beyond a wire loss of about 1% (the 1 of 2 above), less two standard errors.
  assert.ok(s.baseCongestion > 0.25 && s.baseCongestion < 0.3, `${s.baseCongestion}`);
  // Pooled at half weight with the loss-free step before (there is wire loss, ~1%): all of the enhancement gone reads 75% at once.
  assert.ok(s.congestion! > 0.7, `${s.congestion}`);
});

test('in the first 3 s, loss up to the worst wire loss served (20%) is not congestion; a PELS overshoot beyond it is', () => {
  const e = new CongestionEstimator();
  // A lucky first green report (1 of 30) would make 18% on the enhancement read as 15% congestion and end MKC's start-up.
  assert.equal(e.update({ atMs: 0, intervals: { green: { expected: 30, lost: 1 }, yellow: { expected: 40, lost: 7 }, red: { expected: 30, lost: 6 } } })!.congestion, 0);
  assert.ok(e.update({ atMs: 1000, intervals: { green: { expected: 30, lost: 0 }, yellow: { expected: 40, lost: 4 }, red: { expected: 30, lost: 25 } } })!.congestion! > 0.1);
  // After them the estimate stands alone: 18% against a wire of about 2% is congestion.
  assert.ok(e.update({ atMs: 3500, intervals: { green: { expected: 30, lost: 0 }, yellow: { expected: 40, lost: 7 }, red: { expected: 30, lost: 6 } } })!.congestion! > 0.05);
});

test('with no enhancement in flight green drives the step; a step with no packets measures nothing', () => {
  const e = new CongestionEstimator();
  assert.equal(e.update({ atMs: 0, intervals: {} }), null);
  assert.equal(e.update({ atMs: 0, intervals: { green: { expected: 50, lost: 0 } } })?.measuredLoss, 0);
  assert.equal(e.state.diagnosis, 'clear');
});

test('excessLoss: the loss that passed the wire and was dropped after, less one standard error of binomial noise', () => {
  assert.equal(excessLoss(0.3, 100, 0, 1), 0.3);
  assert.equal(excessLoss(0.1, 100, 0.1, 0), 0);
  assert.ok(Math.abs(excessLoss(0.19, 1e9, 0.1, 1) - 0.1) < 1e-3);
  // 12% lost of 40 at 10% wire loss is well within the noise.
  assert.equal(excessLoss(0.12, 40, 0.1, 1), 0);
  assert.equal(excessLoss(0.5, 10, 1, 1), 0);
});

test('a recorded trace (testbed, PELS router, 2000 kb/s, 10% random loss): read as wire loss, the rate well above eq. 8 on the raw loss', () => {
  const { params, steps } = parseRecording(readFileSync(new URL('./traces/pels-2000kbps-10pct-random-loss.jsonl', import.meta.url), 'utf8'));
  const core = new ControlCore(params);
  const states: CongestionState[] = [];
  let before = 0;
  for (const { input } of steps) {
    const { state } = core.step(input);
    if (state.feedbackSteps !== before) states.push(state.congestion);
    before = state.feedbackSteps;
  }
  const settled = states.slice(10);
  const measured = mean(settled.map((s) => s.measuredLoss!));
  assert.ok(measured > 0.08, `the reports show ${measured}`);
  assert.ok(share(settled, 'wire-loss') > 0.8, `wire-loss diagnosed in ${share(settled, 'wire-loss')}`);
  assert.ok(mean(settled.map((s) => s.congestion!)) < 0.05, `congestion ${mean(settled.map((s) => s.congestion!))}`);
  assert.ok(Math.abs(settled.at(-1)!.wireLoss! - 0.1) < 0.05, `wire ${settled.at(-1)!.wireLoss}`);
});
