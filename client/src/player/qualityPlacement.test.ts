import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TOGGLES, qualityPlacement, toggleKey, WIDE_PLAYER_PX } from './qualityPlacement';

test('beside the video when wide, whatever the toggles; a phone hides it until asked; fullscreen overlays it until hidden', () => {
  assert.equal(qualityPlacement(1000, false, DEFAULT_TOGGLES), 'side');
  assert.equal(qualityPlacement(WIDE_PLAYER_PX, false, { narrow: false, fullscreen: false }), 'side');
  assert.equal(qualityPlacement(390, false, DEFAULT_TOGGLES), 'hidden');
  assert.equal(qualityPlacement(390, false, { ...DEFAULT_TOGGLES, narrow: true }), 'below');
  assert.equal(qualityPlacement(1000, true, DEFAULT_TOGGLES), 'overlay');
  assert.equal(qualityPlacement(390, true, DEFAULT_TOGGLES), 'overlay');
  assert.equal(qualityPlacement(1000, true, { ...DEFAULT_TOGGLES, fullscreen: false }), 'hidden');
  assert.equal(toggleKey(1000, false), null);
  assert.equal(toggleKey(WIDE_PLAYER_PX - 1, false), 'narrow');
  assert.equal(toggleKey(1000, true), 'fullscreen');
});
