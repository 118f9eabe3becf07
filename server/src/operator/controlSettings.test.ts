import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { RequestError } from '../errors';
import { ControlSettings } from './controlSettings';

const initial: ControlLoopParams = { mkc: { alphaKbps: 20, beta: 0.5, initialKbps: 128, minKbps: 128, maxKbps: 2000 }, gamma: GAMMA_DEFAULTS };

test('a valid change is applied and reported; untouched gains and bounds keep their values', () => {
  const applied: ControlLoopParams[] = [];
  const s = new ControlSettings(initial, (p) => applied.push(p));
  assert.deepEqual(s.update({ beta: 1.2, sigma: 0.8 }), { gains: { alphaKbps: 20, beta: 1.2, sigma: 0.8, pThr: 0.75 }, appliesTo: 'new-viewers' });
  assert.equal(applied.length, 1);
  assert.deepEqual(applied[0]!.mkc, { ...initial.mkc, beta: 1.2 });
  assert.deepEqual(applied[0]!.gamma, { ...GAMMA_DEFAULTS, sigma: 0.8 });
  assert.equal(s.current, applied[0]);
});

test('values outside the stable ranges are rejected with every reason, and nothing changes', () => {
  const cases: Array<[Parameters<ControlSettings['update']>[0], RegExp[]]> = [
    [{ beta: 2 }, [/beta must be in \(0, 2\) for MKC to be stable/]],
    [{ beta: 0 }, [/beta must be in \(0, 2\)/]],
    [{ alphaKbps: -1 }, [/alphaKbps must be > 0/]],
    [{ sigma: 3 }, [/sigma must be in \(0, 2\) for gamma to be stable/]],
    [{ pThr: 0 }, [/pThr must be in \(0, 1\]/]],
    [{ pThr: 1.5, beta: -1 }, [/beta must be/, /pThr must be/]],
  ];
  for (const [update, messages] of cases) {
    const applied: ControlLoopParams[] = [];
    const s = new ControlSettings(initial, (p) => applied.push(p));
    assert.throws(
      () => s.update(update),
      (e: unknown) => e instanceof RequestError && e.code === 'bad_request' && messages.every((m) => m.test(e.message)),
      JSON.stringify(update),
    );
    assert.equal(applied.length, 0);
    assert.equal(s.current, initial);
  }
});
