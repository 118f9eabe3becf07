import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BEST_EFFORT_DSCP, COLORS, DSCP } from '@pels/shared/pels/color';
import { dscpFor, modeSwitchRefusal, passingColors, retransmittedColors, rtxDscpFor } from './colorStreamRules';

const ALL = ['green', 'yellow', 'red'] as const;

test('PELS consumes green and yellow with RTX when the kernel can mark them, green only when not; best effort none; nack all', () => {
  assert.deepEqual(retransmittedColors('pels', true), ['green', 'yellow']);
  assert.deepEqual(retransmittedColors('pels', false), ['green']);
  for (const gated of [true, false]) {
    assert.deepEqual(retransmittedColors('best-effort', gated), []);
    assert.deepEqual(retransmittedColors('nack', gated), ALL);
    assert.deepEqual(retransmittedColors('rlm', gated), []);
  }
  assert.deepEqual(ALL.map((c) => dscpFor('pels', c)), [34, 36, 38]);
  for (const mode of ['best-effort', 'nack'] as const) assert.deepEqual(ALL.map((c) => dscpFor(mode, c)), [0, 0, 0]);
});

test('what passes: PELS green and the repaired colors, nack all, best effort green only; never a color consumed without RTX', () => {
  assert.deepEqual(passingColors('pels', ALL, ['green']), ['green']);
  assert.deepEqual(passingColors('pels', ALL, ['green', 'yellow']), ['green', 'yellow']);
  assert.deepEqual(passingColors('pels', ['green'], ['green', 'yellow', 'red']), ['green']);
  assert.deepEqual(passingColors('nack', ALL, ['green']), ALL);
  assert.deepEqual(passingColors('best-effort', ALL, ['green', 'yellow']), ['green']);
  assert.deepEqual(passingColors('best-effort', [], ['green']), []);
});

test('after consume a switch to nack needs every color consumed with RTX, one from nack the gate; PELS and best effort switch freely', () => {
  assert.equal(modeSwitchRefusal('pels', 'best-effort', ALL, true), null);
  assert.equal(modeSwitchRefusal('best-effort', 'pels', [], false), null);
  assert.equal(modeSwitchRefusal('nack', 'nack', ALL, false), null);
  assert.equal(modeSwitchRefusal('pels', 'nack', ALL, true), null);
  assert.equal(modeSwitchRefusal('nack', 'pels', ALL, true), null);
  assert.match(modeSwitchRefusal('pels', 'nack', ['green'], false)!, /to nack: retransmission is set when the viewer starts consuming, and it consumed only green with it/);
  assert.match(modeSwitchRefusal('best-effort', 'nack', [], true)!, /consumed none with it/);
  assert.match(modeSwitchRefusal('nack', 'best-effort', ALL, false)!, /from nack: .*without nftables/);
  // Before consume the mode in force at consume decides: any switch goes.
  assert.equal(modeSwitchRefusal('pels', 'nack', null, false), null);
  assert.equal(modeSwitchRefusal('nack', 'pels', null, false), null);
});

test('rlm is unmarked and not retransmitted; a consuming viewer cannot switch to or from it', () => {
  assert.deepEqual(ALL.map((c) => dscpFor('rlm', c)), [0, 0, 0]);
  assert.match(modeSwitchRefusal('pels', 'rlm', ALL, true)!, /to rlm/);
  assert.match(modeSwitchRefusal('rlm', 'best-effort', [], true)!, /from rlm/);
  assert.equal(modeSwitchRefusal('pels', 'rlm', null, true), null);
});

test("PELS marks green's retransmissions green and yellow's and red's red; the other modes mark them alike", () => {
  assert.deepEqual(COLORS.map((c) => rtxDscpFor('pels', c)), [DSCP.green, DSCP.red, DSCP.red]);
  for (const mode of ['best-effort', 'nack'] as const) assert.deepEqual(COLORS.map((c) => rtxDscpFor(mode, c)), [BEST_EFFORT_DSCP, BEST_EFFORT_DSCP, BEST_EFFORT_DSCP]);
});
