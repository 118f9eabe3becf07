import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeColors, parsePlayerParams, withPlayerParams } from './urlParams';

describe('parsePlayerParams', () => {
  it('defaults to the first stream, all colors, 80 ms', () => {
    assert.deepEqual(parsePlayerParams(''), { streamId: undefined, colors: ['green', 'yellow', 'red'], playoutDeadlineMs: 80, mode: 'pels', controller: undefined });
  });

  it('reads stream, colors (green always included) and deadline', () => {
    assert.deepEqual(parsePlayerParams('?stream=city&colors=red&deadline=120'), {
      streamId: 'city',
      colors: ['green', 'red'],
      playoutDeadlineMs: 120,
      mode: 'pels',
      controller: undefined,
    });
    assert.deepEqual(parsePlayerParams('?colors=green').colors, ['green']);
    assert.deepEqual(parsePlayerParams('?colors=Yellow, blue').colors, ['green', 'yellow']);
    assert.equal(parsePlayerParams('?deadline=abc').playoutDeadlineMs, 80);
    assert.equal(parsePlayerParams('?mode=best-effort').mode, 'best-effort');
    assert.equal(parsePlayerParams('?mode=nack').mode, 'nack');
    assert.equal(parsePlayerParams('?mode=anything').mode, 'pels');
    assert.equal(parsePlayerParams('?cc=tfrc').controller, 'tfrc');
  });
});

describe('normalizeColors', () => {
  it('orders by importance and drops unknown names', () => {
    assert.deepEqual(normalizeColors(['red', 'purple', 'yellow']), ['green', 'yellow', 'red']);
  });
});

describe('withPlayerParams', () => {
  it('keeps other parameters and omits colors when all are wanted', () => {
    assert.equal(withPlayerParams('?deadline=50&colors=green', 's2', ['green', 'yellow', 'red']), '?deadline=50&stream=s2');
    assert.equal(withPlayerParams('', 's1', ['green', 'red']), '?stream=s1&colors=green,red');
  });
});
