import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MKC_PAPER_GAINS, MkcController, mkcStationaryKbps, mkcStep, validateMkcParams, type MkcParams } from './mkc';

const PARAMS: MkcParams = { ...MKC_PAPER_GAINS, initialKbps: 128, minKbps: 100, maxKbps: 2000 };

test('mkcStep is eq. 8', () => {
  const cases = [
    { r: 128, p: 0, expected: 148 },
    { r: 1000, p: 0.1, expected: 1000 + 20 - 0.5 * 1000 * 0.1 },
    { r: 1000, p: -1, expected: 1000 + 20 + 500 },
    { r: 40, p: 1, expected: 40 },
  ];
  for (const { r, p, expected } of cases) assert.equal(mkcStep(r, p, MKC_PAPER_GAINS), expected, `r=${r} p=${p}`);
});

test('a single flow with constant loss settles at alpha / (beta p)', () => {
  const c = new MkcController(PARAMS);
  for (let k = 0; k < 1000; k++) c.update(0.05);
  assert.ok(Math.abs(c.rateKbps - 20 / (0.5 * 0.05)) < 1e-6);
});

test('negative router feedback ramps up exponentially, clamped at the ceiling', () => {
  const c = new MkcController(PARAMS);
  const rates: number[] = [];
  for (let k = 0; k < 4; k++) rates.push(c.update(-1));
  // Each step multiplies by 1 + beta |p| (plus alpha): 128 -> 212 -> 338 -> 527 -> 810.5.
  assert.deepEqual(rates, [212, 338, 527, 810.5]);
  for (let k = 0; k < 10; k++) c.update(-1);
  assert.equal(c.rateKbps, PARAMS.maxKbps);
});

test('the rate never drops below the base-layer floor', () => {
  const c = new MkcController(PARAMS);
  for (let k = 0; k < 20; k++) c.update(1);
  assert.equal(c.rateKbps, PARAMS.minKbps);
});

test('the initial rate and moving bounds are clamped', () => {
  const c = new MkcController({ ...PARAMS, initialKbps: 50 });
  assert.equal(c.rateKbps, 100);
  c.setBounds(300, 400);
  assert.equal(c.rateKbps, 300);
  c.setBounds(100, 200);
  assert.equal(c.rateKbps, 200);
  assert.throws(() => c.setBounds(500, 400), /maxKbps/);
});

test('a ceiling that dips and comes back takes the rate back up with it, unless a step lowered the rate meanwhile', () => {
  const c = new MkcController({ ...PARAMS, minKbps: 100, maxKbps: 1000, initialKbps: 900 });
  c.setBounds(100, 400); // an ingest stall: the stream measured low for a while
  assert.equal(c.rateKbps, 400);
  c.update(0); // no loss at the ceiling: held there
  assert.equal(c.rateKbps, 400);
  c.setBounds(100, 1000);
  assert.equal(c.rateKbps, 900, 'back where the path left it, not 420');
  c.setBounds(100, 400);
  c.update(0.5); // the path asks for less: 400 + 20 - 100
  assert.equal(c.rateKbps, 320);
  c.setBounds(100, 1000);
  assert.equal(c.rateKbps, 320, 'what the ceiling held is forgotten');
});

test('feedback on traffic sent before the ceiling dipped that asks for less than it was sent at forgets what the ceiling held', () => {
  const c = new MkcController({ ...PARAMS, minKbps: 100, maxKbps: 1000, initialKbps: 900 });
  c.setBounds(100, 400);
  c.update(0.1, 900); // sent at 900: 900 + 20 - 45 = 875, above the ceiling but below what was sent
  assert.equal(c.rateKbps, 400);
  c.setBounds(100, 1000);
  assert.equal(c.rateKbps, 400);
});

test('an initial rate above the ceiling is where the rate goes as the ceiling rises', () => {
  const c = new MkcController({ ...PARAMS, minKbps: 100, maxKbps: 300, initialKbps: 100_000 });
  assert.equal(c.rateKbps, 300);
  c.setBounds(100, 1200);
  assert.equal(c.rateKbps, 1200);
});

test('a step from the reference rate ignores the current rate (eq. 8 r(k - D))', () => {
  const c = new MkcController(PARAMS);
  c.update(-1);
  assert.equal(c.update(0.1, 1000), 1000 + 20 - 50);
});

test('update rejects feedback that no loss or router sample can produce', () => {
  const c = new MkcController(PARAMS);
  for (const p of [Number.NaN, 1.5, Number.NEGATIVE_INFINITY]) assert.throws(() => c.update(p), RangeError);
  assert.equal(c.rateKbps, 128);
});

test('validateMkcParams: stable iff 0 < beta < 2 and alpha > 0, with clear messages', () => {
  const cases: Array<{ change: Partial<MkcParams>; errors: RegExp[] }> = [
    { change: {}, errors: [] },
    { change: { beta: 1.99 }, errors: [] },
    { change: { beta: 2 }, errors: [/beta must be in \(0, 2\).*got 2$/] },
    { change: { beta: 2.2 }, errors: [/stable/] },
    { change: { beta: 0 }, errors: [/beta must be in \(0, 2\)/] },
    { change: { beta: -0.5 }, errors: [/beta/] },
    { change: { alphaKbps: 0 }, errors: [/alphaKbps must be > 0/] },
    { change: { alphaKbps: Number.NaN }, errors: [/alphaKbps must be a finite number/] },
    { change: { minKbps: 500, maxKbps: 400 }, errors: [/maxKbps must be .*>= minKbps/] },
    { change: { minKbps: -1 }, errors: [/minKbps/] },
    { change: { alphaKbps: -1, beta: 3 }, errors: [/alphaKbps/, /beta/] },
  ];
  for (const { change, errors } of cases) {
    const got = validateMkcParams({ ...PARAMS, ...change });
    assert.equal(got.length, errors.length, `${JSON.stringify(change)}: ${got.join('; ')}`);
    errors.forEach((re, i) => assert.match(got[i]!, re));
  }
});

test('the controller accepts unstable gains (for the lab) but refuses meaningless numbers', () => {
  assert.doesNotThrow(() => new MkcController({ ...PARAMS, beta: 2.2 }));
  assert.throws(() => new MkcController({ ...PARAMS, initialKbps: Number.NaN }), /initialKbps/);
});

test('stationary rate is C/N + alpha/beta (eq. 10)', () => {
  assert.equal(mkcStationaryKbps(2000, 4, MKC_PAPER_GAINS), 540);
});
