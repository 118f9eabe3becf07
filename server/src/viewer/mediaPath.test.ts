import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canColor, mediaTransport, modeInForce, ViewerPath } from './mediaPath';

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

test('a viewer path: PELS until ICE picks TCP, back to PELS on UDP; a change is told once', () => {
  const path = new ViewerPath('pels');
  assert.equal(path.update(), null);
  path.setTuple('tcp');
  assert.equal(path.update(), 'best-effort');
  assert.equal(path.update(), null);
  assert.equal(path.mode, 'best-effort');
  assert.equal(path.requested, 'pels');
  path.setTuple('udp');
  path.setRelayed(true);
  assert.equal(path.update(), null, 'a relay cannot carry colors either');
  path.setRelayed(false);
  assert.equal(path.update(), 'pels');
});
