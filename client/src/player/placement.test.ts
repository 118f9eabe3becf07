import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOST_EDGE_MS, LostEdges, pagePlacer, placeQuery } from './placement';

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

/** A page whose placement meta says `content` (none: no such meta). */
const pageSaying = (content: string | undefined) => ({
  querySelector: (selector: string) => (content !== undefined && selector === 'meta[name="pels-placement"]' ? ({ getAttribute: (name: string) => (name === 'content' ? content : null) } as unknown as Element) : null),
});

test("a single server's page plays on its own /ws without asking /api/place; a cluster's page, or one that does not say, asks the front", async (t) => {
  const front = { origin: 'https://front.example', protocol: 'https:', host: 'front.example' } as Location;
  const asked: string[] = [];
  t.mock.method(globalThis, 'fetch', (url: string) => {
    asked.push(url);
    return Promise.resolve(Response.json({ node: 'edge-a', ws: 'wss://edge-a.example/ws' }));
  });
  const here = pagePlacer(front, pageSaying('none'));
  assert.deepEqual(await here('s', []), { node: undefined, signalingUrl: 'wss://front.example/ws' });
  assert.deepEqual(await here('s', ['edge-a']), { node: undefined, signalingUrl: 'wss://front.example/ws' });
  assert.deepEqual(asked, []);
  for (const content of ['registry', undefined]) {
    assert.deepEqual(await pagePlacer(front, pageSaying(content))('s', ['edge-b']), { node: 'edge-a', signalingUrl: 'wss://edge-a.example/ws' });
  }
  assert.deepEqual(asked, ['https://front.example/api/place?stream=s&exclude=edge-b', 'https://front.example/api/place?stream=s&exclude=edge-b']);
});
