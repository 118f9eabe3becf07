import assert from 'node:assert/strict';
import { test } from 'node:test';
import { qualityRowScores } from './qualityRow';

test('a quality row\'s scores by decoded frame, newest first, leaving out the frames the server did not decode', () => {
  assert.deepEqual(qualityRowScores({ index: 20, tid: 0, crc: 1, psnr: [30, null, 25.5] }), [
    [20, 30],
    [18, 25.5],
  ]);
  assert.deepEqual(qualityRowScores({ index: 3, tid: 2, crc: 1, psnr: [] }), []);
});
