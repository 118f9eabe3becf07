import assert from 'node:assert/strict';
import { test } from 'node:test';
import { userPath } from './userPath';

test("a relative path is resolved from where npm was run (INIT_CWD), an absolute one is kept", () => {
  assert.equal(userPath('e2e/out/x.csv', { INIT_CWD: '/repo' }), '/repo/e2e/out/x.csv');
  assert.equal(userPath('/tmp/x.csv', { INIT_CWD: '/repo' }), '/tmp/x.csv');
  assert.equal(userPath('x.csv', {}), `${process.cwd()}/x.csv`);
});
