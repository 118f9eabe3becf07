import assert from 'node:assert/strict';
import { test } from 'node:test';
import { takeTokenFromFragment } from './operatorToken';

test('the token comes from #token=..., percent-decoded; anything else is none', () => {
  assert.equal(takeTokenFromFragment('#token=abc%2Bdef'), 'abc+def');
  assert.equal(takeTokenFromFragment('#x=1&token=t0k3n'), 't0k3n');
  assert.equal(takeTokenFromFragment('#token='), null);
  assert.equal(takeTokenFromFragment(''), null);
});
