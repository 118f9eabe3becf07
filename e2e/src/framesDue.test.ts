import assert from 'node:assert/strict';
import { test } from 'node:test';
import { framesDue } from './framesDue';

test('a catch-up burst counts only what the frame rate gives in the time', () => {
  assert.equal(framesDue(410, 30, 10_000), 300);
});

test('a source slowed by a busy machine counts what it ingested', () => {
  assert.equal(framesDue(240, 30, 10_000), 240);
});
