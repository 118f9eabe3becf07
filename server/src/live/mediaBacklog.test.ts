import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MediaBacklog } from './mediaBacklog';

test('the backlog spans the unread tags, oldest to newest, in media time; nothing unread is none', () => {
  const b = new MediaBacklog();
  for (let i = 0; i < 10; i++) b.wrote(1000, i * 33);
  // Half of tag 6 unread, and the 3 after it: 6 * 33 to 9 * 33.
  assert.equal(b.behindMs(3500), 99);
  // The last 3 tags unread: 7 * 33 to 9 * 33.
  assert.equal(b.behindMs(3000), 66);
  assert.equal(b.behindMs(0), 0);
  b.wrote(1000, 10 * 33);
  assert.equal(b.behindMs(1000), 0);
});

test('timestamps that wrap at 2^32 still count forward', () => {
  const b = new MediaBacklog();
  b.wrote(10, 2 ** 32 - 100);
  b.wrote(10, 300);
  assert.equal(b.behindMs(20), 400);
});

test('MPEG-TS PTS (ms) wrap at 2^33 / 90', () => {
  const wrap = 2 ** 33 / 90;
  const b = new MediaBacklog(wrap);
  b.wrote(10, wrap - 100);
  b.wrote(10, 300);
  assert.equal(Math.round(b.behindMs(20)), 400);
});
