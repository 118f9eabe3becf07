import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canColor, mediaTransport, modeInForce } from './mediaPath';

test('transport: the server tuple tells tcp; a UDP peer is a relay when the player says so', () => {
  assert.equal(mediaTransport(null, false), null);
  assert.equal(mediaTransport('udp', false), 'udp');
  assert.equal(mediaTransport('udp', true), 'relay');
  // A TCP tuple is TCP whatever the player says: the server's own view wins.
  assert.equal(mediaTransport('tcp', true), 'tcp');
  assert.equal(mediaTransport('tcp', false), 'tcp');
});

test('only a direct UDP path is served PELS; tcp and relay are best effort', () => {
  assert.deepEqual([null, 'udp', 'tcp', 'relay'].map((t) => canColor(t as never)), [true, true, false, false]);
  assert.equal(modeInForce('pels', 'udp'), 'pels');
  assert.equal(modeInForce('pels', null), 'pels');
  assert.equal(modeInForce('pels', 'tcp'), 'best-effort');
  assert.equal(modeInForce('pels', 'relay'), 'best-effort');
  assert.equal(modeInForce('best-effort', 'udp'), 'best-effort');
});
