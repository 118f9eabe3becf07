import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Unwrapper } from './unwrap';

test('sequence numbers and timestamps go on past the wrap; a late value stays behind', () => {
  const seq = new Unwrapper(16);
  assert.deepEqual([65534, 65535, 0, 1, 65535, 2].map((v) => seq.extend(v)), [65534, 65535, 65536, 65537, 65535, 65538]);
  const ts = new Unwrapper(32);
  assert.deepEqual([2 ** 32 - 3000, 0, 3000, 2 ** 32 - 100].map((v) => ts.extend(v)), [2 ** 32 - 3000, 2 ** 32, 2 ** 32 + 3000, 2 ** 32 - 100]);
});
