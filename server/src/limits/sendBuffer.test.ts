import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDroppable, sendVerdict } from './sendBuffer';

const MAX = 1000;

test('notifications that the next one replaces are dropped past half the bound', () => {
  assert.equal(sendVerdict(0, 400, true, MAX), 'send');
  assert.equal(sendVerdict(100, 400, true, MAX), 'send');
  assert.equal(sendVerdict(101, 400, true, MAX), 'drop');
  assert.equal(sendVerdict(900, 10, true, MAX), 'drop');
});

test('a message that must arrive is sent up to the bound; past it the socket is closed', () => {
  assert.equal(sendVerdict(501, 400, false, MAX), 'send');
  assert.equal(sendVerdict(600, 400, false, MAX), 'send');
  assert.equal(sendVerdict(601, 400, false, MAX), 'close');
  assert.equal(sendVerdict(0, MAX + 1, false, MAX), 'close');
});

test('quality and viewerState can be dropped; answers and the other notifications cannot', () => {
  assert.equal(isDroppable({ notification: 'quality', data: { frames: [] } }), true);
  assert.equal(isDroppable({ notification: 'viewerClosed', data: { reason: 'x', rejoin: true } }), false);
  assert.equal(isDroppable({ id: 1, ok: true, data: { colors: ['green'] } }), false);
  assert.equal(isDroppable({ id: null, ok: false, error: { code: 'bad_request', message: 'x' } }), false);
});
