import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EMPTY_STATE,
  operatorStateSchema,
  streamsAtStart,
  withGains,
  withOperatorToken,
  withStreamAdded,
  withStreamRemoved,
} from './operatorState';

const lavfi = { id: 'pattern', name: 'Test pattern', source: 'lavfi:testsrc2' };

test("SOURCE's default stream comes first, then the operator's, in the order added; a removed one is gone", () => {
  let s = withStreamAdded(EMPTY_STATE, lavfi);
  s = withStreamAdded(s, { id: 'b', name: 'b', source: '/media/b.mp4' });
  assert.deepEqual(
    streamsAtStart(s, '/media/city.mpg').map((x) => [x.id, x.source]),
    [['default', '/media/city.mpg'], ['pattern', 'lavfi:testsrc2'], ['b', '/media/b.mp4']],
  );
  s = withStreamRemoved(s, 'pattern');
  assert.deepEqual(streamsAtStart(s, '/media/city.mpg').map((x) => x.id), ['default', 'b']);
  assert.equal(withStreamRemoved(s, 'no-such'), s);
});

test('removing the default stream keeps it removed whatever SOURCE says, until the operator adds one by that id', () => {
  let s = withStreamRemoved(EMPTY_STATE, 'default');
  assert.deepEqual(streamsAtStart(s, '/media/city.mpg'), []);
  s = withStreamAdded(s, { id: 'default', name: 'Mine', source: 'lavfi:testsrc' });
  assert.deepEqual(streamsAtStart(s, '/media/city.mpg'), [{ id: 'default', name: 'Mine', source: 'lavfi:testsrc' }]);
  assert.equal(operatorStateSchema.safeParse(s).success, true);
  s = withStreamRemoved(s, 'default');
  assert.deepEqual(streamsAtStart(s, '/media/city.mpg'), []);
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
