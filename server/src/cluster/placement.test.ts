import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeRecord } from './clusterRegistry';
import { chooseEdge } from './placement';

const node = (id: string, over: Partial<NodeRecord> = {}): NodeRecord => ({
  id,
  role: 'edge',
  url: `http://${id}:8080/`,
  viewers: 0,
  viewersMax: 100,
  cpuPercentOfOneCore: 10,
  streams: ['default'],
  draining: false,
  ...over,
});

test('the edge with the most room of those serving the stream; CPU breaks a tie', () => {
  const nodes = [node('o', { role: 'origin', viewers: 0 }), node('a', { viewers: 50 }), node('b', { viewers: 30, viewersMax: 50 }), node('c', { viewers: 40 })];
  assert.equal(chooseEdge(nodes, 'default')?.id, 'c');
  assert.equal(chooseEdge([node('a', { cpuPercentOfOneCore: 80 }), node('b', { cpuPercentOfOneCore: 20 })], 'default')?.id, 'b');
});

test('none: no edge serves the stream, or every one is full', () => {
  assert.equal(chooseEdge([node('a', { streams: ['other'] }), node('o', { role: 'origin' })], 'default'), null);
  assert.equal(chooseEdge([node('a', { viewers: 100 })], 'default'), null);
  assert.equal(chooseEdge([], 'default'), null);
});

test('never an edge that drains, nor one the viewer lost', () => {
  const nodes = [node('a', { viewers: 10 }), node('b', { viewers: 0, draining: true }), node('c', { viewers: 20 })];
  assert.equal(chooseEdge(nodes, 'default')?.id, 'a');
  assert.equal(chooseEdge(nodes, 'default', new Set(['a']))?.id, 'c');
  assert.equal(chooseEdge(nodes, 'default', new Set(['a', 'c'])), null);
});
