import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOST_EDGE_MS, LostEdges, placeQuery } from './placement';

test('a lost edge is excluded for LOST_EDGE_MS, then asked for again', () => {
  const lost = new LostEdges();
  lost.add('edge-a', 1000);
  lost.add('edge-b', 4000);
  assert.deepEqual(lost.list(1000 + LOST_EDGE_MS - 1), ['edge-a', 'edge-b']);
  assert.deepEqual(lost.list(1000 + LOST_EDGE_MS), ['edge-b']);
  assert.deepEqual(lost.list(4000 + LOST_EDGE_MS), []);
});

test('the placement query names the stream and the edges to avoid', () => {
  assert.equal(placeQuery(undefined, []), '');
  assert.equal(placeQuery('main stage', ['edge-a', 'edge-b']), '?stream=main+stage&exclude=edge-a%2Cedge-b');
});
