import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QualityRenditions } from './qualityRenditions';

test('a viewer gets the rows of the rendition it receives, and no other', () => {
  const q = new QualityRenditions(3000);
  assert.deepEqual(q.update(0, null, 0), { start: [0], stop: [] });
  assert.deepEqual(q.update(0, null, 1000), { start: [], stop: [] });
});

test('a switch starts the target rendition at once and stops the one left after the linger', () => {
  const q = new QualityRenditions(3000);
  q.update(0, null, 0);
  assert.deepEqual(q.update(0, 1, 1000), { start: [1], stop: [] }, 'moving to 1: both');
  assert.deepEqual(q.update(1, null, 1500), { start: [], stop: [] }, 'left 0 at 1500');
  assert.deepEqual(q.update(1, null, 4000), { start: [], stop: [] });
  assert.deepEqual(q.update(1, null, 4500), { start: [], stop: [0] });
  assert.deepEqual(q.update(1, null, 9000), { start: [], stop: [] });
});

test('a switch seen only once done (no pending seen) still starts the new rendition', () => {
  const q = new QualityRenditions(3000);
  q.update(0, null, 0);
  assert.deepEqual(q.update(1, null, 1000), { start: [1], stop: [] });
});

test('coming back within the linger keeps the subscription (no stop, no second start)', () => {
  const q = new QualityRenditions(3000);
  q.update(0, null, 0);
  q.update(1, null, 1000);
  assert.deepEqual(q.update(0, null, 2000), { start: [], stop: [] });
  assert.deepEqual(q.update(0, null, 5000), { start: [], stop: [1] }, 'left 1 at 2000');
});
