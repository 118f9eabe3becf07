import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AddressRateLimit } from '../limits/addressRateLimit';
import { PublishGate, PublishRefused } from './publishGate';
import type { LiveTarget, Publisher } from './publisher';
import { generateStreamKey, hashStreamKey, STREAM_KEY_PATTERN } from './streamKeys';

const key = generateStreamKey();
const other = generateStreamKey();
const live = { show: { keySha256: hashStreamKey(key), takeover: false }, revoked: { keySha256: null, takeover: false } };
const target = (id: string, publishing = false): LiveTarget => ({
  id,
  isLive: true,
  publisher: publishing ? ({ protocol: 'rtmp' } as Publisher) : null,
  attachPublisher: () => undefined,
});

let clock = 0;
const limit = (perMinute: number) => new AddressRateLimit({ burst: perMinute, perMinute }, () => clock);

function gate(streams: Record<string, LiveTarget>, settings: Record<string, { keySha256: string | null; takeover: boolean }> = live, perMinute = 100, keyFailuresPerMinute = 100) {
  return new PublishGate({ live: () => settings, stream: (id) => streams[id], attempts: limit(perMinute), keyFailures: limit(keyFailuresPerMinute) });
}

const refusal = (reason: string) => (e: unknown) => e instanceof PublishRefused && e.reason === reason;

test('keys: 43 base64url characters, stored as their SHA-256', () => {
  assert.match(key, STREAM_KEY_PATTERN);
  assert.notEqual(key, other);
  assert.match(hashStreamKey(key), /^[0-9a-f]{64}$/);
});

test('the key names its stream; a wrong, malformed or revoked key is refused and counted', () => {
  const g = gate({ show: target('show'), revoked: target('revoked') });
  assert.equal(g.admit('rtmp', '10.0.0.1', key).id, 'show');
  assert.throws(() => g.admit('rtmp', '10.0.0.1', other), refusal('bad_key'));
  assert.throws(() => g.admit('srt', '10.0.0.1', ''), refusal('bad_key'));
  assert.throws(() => g.admit('srt', '10.0.0.1', `${key}x`), refusal('bad_key'));
  assert.equal(g.counts.accepted.rtmp, 1);
  assert.equal(g.counts.refused.rtmp.bad_key, 1);
  assert.equal(g.counts.refused.srt.bad_key, 2);
});

test('a key of a stream the server no longer has, or of one that is not live, is refused', () => {
  assert.throws(() => gate({}).admit('rtmp', 'a', key), refusal('bad_key'));
  assert.throws(() => gate({ show: { ...target('show'), isLive: false } }).admit('rtmp', 'a', key), refusal('bad_key'));
});

test('a second publisher is refused unless the stream allows takeover', () => {
  assert.throws(() => gate({ show: target('show', true) }).admit('rtmp', 'a', key), (e: unknown) => refusal('busy')(e) && /already has a publisher/.test((e as Error).message));
  const g = gate({ show: target('show', true) }, { show: { keySha256: hashStreamKey(key), takeover: true } });
  assert.equal(g.admit('rtmp', 'a', key).id, 'show');
});

test('an address over its attempt rate is refused before its key is looked at; others go on', () => {
  const g = gate({ show: target('show') }, live, 2);
  assert.throws(() => g.admit('rtmp', 'a', other), refusal('bad_key'));
  assert.throws(() => g.admit('rtmp', 'a', other), refusal('bad_key'));
  assert.throws(() => g.admit('rtmp', 'a', key), refusal('rate_limited'));
  assert.equal(g.admit('rtmp', 'b', key).id, 'show');
  assert.equal(g.counts.refused.rtmp.rate_limited, 1);
});

test('wrong keys lock their address out, right key or wrong, until its allowance refills; another address and its right key go on', () => {
  clock = 0;
  const g = gate({ show: target('show') }, live, 100, 3);
  for (const k of [other, 'short', '']) assert.throws(() => g.admit('whip', '10.0.0.1', k), refusal('bad_key'));
  assert.throws(
    () => g.admit('rtmp', '10.0.0.1', key),
    (e: unknown) => refusal('locked_out')(e) && (e as PublishRefused).retryAfterS === 20 && /too many wrong stream keys/.test((e as Error).message),
  );
  assert.equal(g.admit('srt', '10.0.0.2', key).id, 'show');
  // An IPv6 publisher is counted by its /64, as viewers are: hopping addresses inside it does not reset the count.
  for (const host of ['1', '2', '3']) assert.throws(() => g.admit('rtmp', `2001:db8:1:2::${host}`, other), refusal('bad_key'));
  assert.throws(() => g.admit('rtmp', '2001:db8:1:2::99', key), refusal('locked_out'));
  assert.equal(g.counts.refused.rtmp.locked_out, 2);
  assert.equal(g.counts.refused.whip.bad_key, 3);
  clock = 20_000;
  assert.equal(g.admit('rtmp', '10.0.0.1', key).id, 'show');
  // One wrong key back, one used: locked again at once.
  assert.throws(() => g.admit('rtmp', '10.0.0.1', other), refusal('bad_key'));
  assert.throws(() => g.admit('rtmp', '10.0.0.1', key), refusal('locked_out'));
});
