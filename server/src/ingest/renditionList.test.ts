import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultRenditions, parseRenditions } from './renditionList';
import { DEFAULT_ENCODE } from './sourceSpec';

test('renditions parse highest first; none is the stream alone', () => {
  assert.deepEqual(defaultRenditions(DEFAULT_ENCODE), [{ width: 320, height: 180, bitrateKbps: 200 }]);
  assert.deepEqual(defaultRenditions({ ...DEFAULT_ENCODE, bitrateKbps: 200 }), [{ width: 320, height: 180, bitrateKbps: 40 }]);
  assert.deepEqual(parseRenditions('320x180@250', DEFAULT_ENCODE), [{ width: 320, height: 180, bitrateKbps: 250 }]);
  assert.deepEqual(parseRenditions(' 480x270@500, 320x180@250 ', DEFAULT_ENCODE), [
    { width: 480, height: 270, bitrateKbps: 500 },
    { width: 320, height: 180, bitrateKbps: 250 },
  ]);
  assert.deepEqual(parseRenditions('none', DEFAULT_ENCODE), []);
});

test('a rendition that is not smaller and lower than the one above is refused, naming it', () => {
  assert.throws(() => parseRenditions('320x180', DEFAULT_ENCODE), /"320x180" is not WxH@KBPS/);
  assert.throws(() => parseRenditions('640x360@250', DEFAULT_ENCODE), /smaller than 640x360/);
  assert.throws(() => parseRenditions('320x180@1000', DEFAULT_ENCODE), /below 1000/);
  assert.throws(() => parseRenditions('320x180@250,480x270@100', DEFAULT_ENCODE), /"480x270@100" must be smaller than 320x180/);
  assert.throws(() => parseRenditions('321x180@250', DEFAULT_ENCODE), /even/);
});
