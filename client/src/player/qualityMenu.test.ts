import assert from 'node:assert/strict';
import { test } from 'node:test';
import { qualityButtonLabel, qualityOptions } from './qualityMenu';

const TWO = [
  { width: 640, height: 360, bitrateKbps: 1000 },
  { width: 320, height: 180, bitrateKbps: 200 },
];

test('Auto, full size and lower size; nothing to choose with one rendition', () => {
  assert.deepEqual(
    qualityOptions(TWO).map((o) => [o.choice, o.label, o.detail]),
    [
      ['auto', 'Auto', 'by your connection'],
      [0, 'Full size', '640×360'],
      [1, 'Lower size', '320×180'],
    ],
  );
  assert.deepEqual(qualityOptions(TWO.slice(0, 1)), []);
  const three = [...TWO, { width: 160, height: 90, bitrateKbps: 80 }];
  assert.deepEqual(qualityOptions(three).map((o) => o.label), ['Auto', 'Full size', 'Lower size 1', 'Lower size 2']);
});

test('the button names the pinned size, or Auto with the size playing', () => {
  assert.equal(qualityButtonLabel(1, TWO, 0), 'Lower size');
  assert.equal(qualityButtonLabel(0, TWO, 1), 'Full size');
  assert.equal(qualityButtonLabel('auto', TWO, 1), 'Auto (320×180)');
  assert.equal(qualityButtonLabel('auto', TWO, undefined), 'Auto');
});
