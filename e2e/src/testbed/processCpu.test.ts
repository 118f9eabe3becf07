import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schedstatWaitSeconds } from './processCpu';

test('schedstatWaitSeconds reads the run-queue wait of a schedstat line', () => {
  assert.equal(schedstatWaitSeconds('123456789 2500000000 42\n'), 2.5);
  assert.equal(schedstatWaitSeconds('123456789'), null);
  assert.equal(schedstatWaitSeconds(''), null);
});
