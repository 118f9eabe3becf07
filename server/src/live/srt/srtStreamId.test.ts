import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyOfStreamId, StreamIdError } from './srtStreamId';

test("a streamid is the key alone, or the access-control syntax's resource when it publishes", () => {
  assert.equal(keyOfStreamId('abc_DEF-123'), 'abc_DEF-123');
  assert.equal(keyOfStreamId('#!::r=live/abc,m=publish'), 'abc');
  assert.equal(keyOfStreamId('#!::m=publish,r=abc,u=someone'), 'abc');
});

test('a streamid that plays, names no resource, or is empty is refused with a reason', () => {
  assert.throws(() => keyOfStreamId(''), StreamIdError);
  assert.throws(() => keyOfStreamId('#!::r=live/abc'), /publishers only/);
  assert.throws(() => keyOfStreamId('#!::r=live/abc,m=request'), /publishers only/);
  assert.throws(() => keyOfStreamId('#!::m=publish'), /no resource/);
  assert.throws(() => keyOfStreamId('#!::r=live/,m=publish'), /no resource/);
});
