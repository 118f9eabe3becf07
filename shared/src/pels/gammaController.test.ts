import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GAMMA_DEFAULTS, GammaController, gammaStep, validateGammaParams, type GammaParams } from './gammaController';

test('gamma converges to p/p_thr for 0 < sigma < 2, so red loss p/gamma reaches p_thr (Lemmas 2, 4)', () => {
  for (const sigma of [0.1, 0.5, 1, 1.5, 1.9]) {
    for (const p of [0.05, 0.1, 0.3, 0.5, 0.75]) {
      const c = new GammaController({ ...GAMMA_DEFAULTS, sigma });
      for (let k = 0; k < 500; k++) c.update(p);
      assert.ok(Math.abs(c.gamma - p / 0.75) < 1e-6, `sigma=${sigma} p=${p}: gamma ${c.gamma}`);
      assert.ok(Math.abs(p / c.gamma - 0.75) < 1e-5, `sigma=${sigma} p=${p}: red loss ${p / c.gamma}`);
    }
  }
});

test('eq. 4 without clamps diverges for sigma > 2 and never settles at sigma = 2', () => {
  const p = 0.5;
  const target = p / 0.75;
  for (const { sigma, grows } of [
    { sigma: 2, grows: false },
    { sigma: 2.5, grows: true },
    { sigma: 3, grows: true },
  ]) {
    let gamma = 0.5;
    const e0 = Math.abs(gamma - target);
    for (let k = 0; k < 40; k++) gamma = gammaStep(gamma, p, { sigma, pThr: 0.75 });
    const e = Math.abs(gamma - target);
    if (grows) assert.ok(e > 1000 * e0, `sigma=${sigma}: error ${e}`);
    else assert.ok(Math.abs(e - e0) < 1e-9, `sigma=${sigma}: error ${e} (should stay ${e0})`);
  }
});

test('the clamped controller with sigma = 3 keeps oscillating between its bounds (paper Fig. 5)', () => {
  const c = new GammaController({ ...GAMMA_DEFAULTS, sigma: 3 });
  const tail: number[] = [];
  for (let k = 0; k < 200; k++) {
    c.update(0.5);
    if (k >= 180) tail.push(c.gamma);
  }
  assert.ok(Math.max(...tail) - Math.min(...tail) > 0.5, `tail ${tail.join(', ')}`);
});

test('gamma stays in [gammaLow, 1]: negative p counts as no loss, heavy loss saturates at 1', () => {
  const cases = [
    { p: -3, expected: GAMMA_DEFAULTS.gammaLow },
    { p: 0, expected: GAMMA_DEFAULTS.gammaLow },
    { p: 0.9, expected: 1 },
    { p: 1, expected: 1 },
  ];
  for (const { p, expected } of cases) {
    const c = new GammaController();
    for (let k = 0; k < 100; k++) c.update(p);
    assert.ok(Math.abs(c.gamma - expected) < 1e-9, `p=${p}: ${c.gamma}`);
  }
});

test('one step from the default start follows eq. 4', () => {
  const c = new GammaController();
  assert.equal(c.gamma, 0.5);
  const g1 = c.update(0.3);
  assert.equal(g1, 0.5 + 0.5 * (0.3 / 0.75 - 0.5));
  assert.equal(c.update(-1), g1 + 0.5 * (0 - g1));
});

test('validateGammaParams: stable iff 0 < sigma < 2, 0 < p_thr <= 1, 0 <= gamma_low < 1', () => {
  const cases: Array<{ change: Partial<GammaParams>; errors: RegExp[] }> = [
    { change: {}, errors: [] },
    { change: { pThr: 1, gammaLow: 0 }, errors: [] },
    { change: { sigma: 2 }, errors: [/sigma must be in \(0, 2\).*got 2$/] },
    { change: { sigma: 3 }, errors: [/stable/] },
    { change: { sigma: 0 }, errors: [/sigma/] },
    { change: { pThr: 0 }, errors: [/pThr must be in \(0, 1\]/] },
    { change: { pThr: 1.2 }, errors: [/pThr/] },
    { change: { gammaLow: 1 }, errors: [/gammaLow must be in \[0, 1\)/] },
    { change: { gammaLow: -0.1 }, errors: [/gammaLow/] },
    { change: { initial: 1.5 }, errors: [/initial/] },
    { change: { sigma: Number.NaN }, errors: [/sigma must be a finite number/] },
  ];
  for (const { change, errors } of cases) {
    const got = validateGammaParams({ ...GAMMA_DEFAULTS, ...change });
    assert.equal(got.length, errors.length, `${JSON.stringify(change)}: ${got.join('; ')}`);
    errors.forEach((re, i) => assert.match(got[i]!, re));
  }
});

test('the controller refuses meaningless numbers and bad feedback', () => {
  assert.throws(() => new GammaController({ ...GAMMA_DEFAULTS, pThr: 0 }), /pThr/);
  const c = new GammaController();
  assert.throws(() => c.update(Number.NaN), RangeError);
  assert.throws(() => c.update(1.01), RangeError);
});
