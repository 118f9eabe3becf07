import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dscpFor, modeSwitchRefusal, retransmittedColors } from './modePolicy';

test('PELS retransmits green only and colors the marks; best effort retransmits nothing; nack retransmits all, marked alike', () => {
  assert.deepEqual(retransmittedColors('pels'), ['green']);
  assert.deepEqual(retransmittedColors('best-effort'), []);
  assert.deepEqual(retransmittedColors('nack'), ['green', 'yellow', 'red']);
  assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor('pels', c as 'green')), [34, 36, 38]);
  for (const mode of ['best-effort', 'nack'] as const) assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor(mode, c as 'green')), [0, 0, 0]);
});

test('after consume a switch to or from nack is refused with a reason; PELS and best effort switch freely', () => {
  assert.equal(modeSwitchRefusal('pels', 'best-effort', true), null);
  assert.equal(modeSwitchRefusal('best-effort', 'pels', true), null);
  assert.equal(modeSwitchRefusal('nack', 'nack', true), null);
  assert.match(modeSwitchRefusal('pels', 'nack', true)!, /to nack: retransmission is set when the viewer starts consuming/);
  assert.match(modeSwitchRefusal('nack', 'best-effort', true)!, /from nack/);
  // Before consume the mode in force at consume decides: any switch goes.
  assert.equal(modeSwitchRefusal('pels', 'nack', false), null);
  assert.equal(modeSwitchRefusal('nack', 'pels', false), null);
});

test('rlm is unmarked and not retransmitted; a consuming viewer cannot switch to or from it', () => {
  assert.deepEqual(['green', 'yellow', 'red'].map((c) => dscpFor('rlm', c as 'green')), [0, 0, 0]);
  assert.deepEqual(retransmittedColors('rlm'), []);
  assert.match(modeSwitchRefusal('pels', 'rlm', true)!, /to rlm/);
  assert.match(modeSwitchRefusal('rlm', 'best-effort', true)!, /from rlm/);
  assert.equal(modeSwitchRefusal('pels', 'rlm', false), null);
});
