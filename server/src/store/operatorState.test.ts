import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EMPTY_STATE,
  operatorStateSchema,
  withGains,
  withLiveSettings,
  withOperatorToken,
  withStreamAdded,
  withStreamRemoved,
} from './operatorState';

const lavfi = { id: 'pattern', name: 'Test pattern', source: 'lavfi:testsrc2' };

test('streams are added in order and removed by id; an unknown id changes nothing', () => {
  let s = withStreamAdded(EMPTY_STATE, lavfi);
  s = withStreamAdded(s, { id: 'b', name: 'b', source: '/media/b.mp4' });
  assert.deepEqual(s.streams.map((x) => x.id), ['pattern', 'b']);
  s = withStreamRemoved(s, 'pattern');
  assert.deepEqual(s.streams.map((x) => x.id), ['b']);
  assert.equal(withStreamRemoved(s, 'no-such'), s);
});

test('removing the default stream marks it removed; one the operator adds by that id is an ordinary saved stream', () => {
  let s = withStreamRemoved(EMPTY_STATE, 'default');
  assert.deepEqual(s, { ...EMPTY_STATE, defaultRemoved: true });
  s = withStreamAdded(s, { id: 'default', name: 'Mine', source: 'lavfi:testsrc' });
  assert.equal(operatorStateSchema.safeParse(s).success, true);
  s = withStreamRemoved(s, 'default');
  assert.deepEqual(s, { ...EMPTY_STATE, defaultRemoved: true });
});

test('gains accumulate: each one set overrides the environment, the others stay unset', () => {
  let s = withGains(EMPTY_STATE, { beta: 0.8 });
  s = withGains(s, { alphaKbps: 30, beta: 0.9 });
  assert.deepEqual(s.gains, { alphaKbps: 30, beta: 0.9 });
  assert.equal(withOperatorToken(s, 'x'.repeat(32)).operatorToken, 'x'.repeat(32));
});

test('the schema refuses states the API cannot produce', () => {
  const bad = [
    { ...EMPTY_STATE, streams: [lavfi, lavfi] },
    { ...EMPTY_STATE, streams: [{ id: 'default', name: 'd', source: 'lavfi:testsrc' }] },
    { ...EMPTY_STATE, streams: [{ id: 'has space', name: 'n', source: 'lavfi:testsrc' }] },
    { ...EMPTY_STATE, streams: [{ id: 'x', source: 'lavfi:testsrc' }] },
    { ...EMPTY_STATE, gains: { gamma: 1 } },
    { ...EMPTY_STATE, operatorToken: 'short' },
    { ...EMPTY_STATE, extra: true },
  ];
  for (const s of bad) assert.equal(operatorStateSchema.safeParse(s).success, false, JSON.stringify(s));
});

test('a live stream keeps its key hash and takeover choice; removing the stream drops them; a revoked key is null', () => {
  const hash = 'a'.repeat(64);
  let s = withLiveSettings(withStreamAdded(EMPTY_STATE, { id: 'show', name: 'Show', source: 'live:' }), 'show', { keySha256: hash, takeover: false });
  assert.equal(operatorStateSchema.safeParse(s).success, true);
  s = withLiveSettings(s, 'show', { keySha256: null, takeover: true });
  assert.deepEqual(s.live, { show: { keySha256: null, takeover: true } });
  assert.equal(operatorStateSchema.safeParse(s).success, true);
  assert.deepEqual(withStreamRemoved(s, 'show').live, {});
  // Settings of a stream that is not live, or a key kept in clear, are refused.
  assert.equal(operatorStateSchema.safeParse(withLiveSettings(withStreamAdded(EMPTY_STATE, lavfi), 'pattern', { keySha256: hash, takeover: false })).success, false);
  assert.equal(operatorStateSchema.safeParse({ ...s, live: { show: { keySha256: 'my-clear-key', takeover: false } } }).success, false);
  // A file from before live streams has no `live`.
  const { live: _none, ...old } = EMPTY_STATE;
  assert.deepEqual(operatorStateSchema.parse(old).live, {});
});
