import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortcutFor, type KeyPress } from './shortcuts';

const press = (key: string, more: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, repeat: false, focus: 'other', ...more });

test('space, m and f play or pause, mute and go fullscreen, either case', () => {
  assert.equal(shortcutFor(press(' ')), 'togglePlay');
  assert.equal(shortcutFor(press('m')), 'toggleMute');
  assert.equal(shortcutFor(press('M')), 'toggleMute');
  assert.equal(shortcutFor(press('f')), 'toggleFullscreen');
  assert.equal(shortcutFor(press('F')), 'toggleFullscreen');
  assert.equal(shortcutFor(press('k')), null);
  assert.equal(shortcutFor(press('Enter')), null);
});

test('no shortcut with a modifier, on a held key, or while typing; space on a button presses the button', () => {
  assert.equal(shortcutFor(press('f', { ctrlKey: true })), null);
  assert.equal(shortcutFor(press('m', { metaKey: true })), null);
  assert.equal(shortcutFor(press(' ', { altKey: true })), null);
  assert.equal(shortcutFor(press(' ', { repeat: true })), null);
  assert.equal(shortcutFor(press('m', { focus: 'text' })), null);
  assert.equal(shortcutFor(press(' ', { focus: 'control' })), null);
  assert.equal(shortcutFor(press('f', { focus: 'control' })), 'toggleFullscreen');
});
