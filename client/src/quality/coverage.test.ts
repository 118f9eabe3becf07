import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoverageTracker } from './coverage';

describe('CoverageTracker', () => {
  it('records per period what arrived, what decoded and what was shown', () => {
    const c = new CoverageTracker();
    c.arrived(0, 'green', 0, 4000, 'decodable');
    c.decoded(0);
    c.arrived(2, 'yellow', 1, 1500, 'decodable'); // frame 1 (red, TID 2) lost
    c.decoded(2);
    c.arrived(3, 'red', 2, 900, 'undecodable');
    for (const [index, shown] of [[0, 0], [1, 0], [2, 2], [3, 2]] as const) c.displayed({ t: 0, index, shown });
    const tids = new Map([[1, 2 as const]]);
    assert.deepEqual(c.columns(5, (i) => tids.get(i)), [
      { index: -1, tid: null, color: null, fate: 'missing', shown: null },
      { index: 0, tid: 0, color: 'green', fate: 'decoded', shown: 0 },
      { index: 1, tid: 2, color: null, fate: 'missing', shown: 0 },
      { index: 2, tid: 1, color: 'yellow', fate: 'decoded', shown: 2 },
      { index: 3, tid: 2, color: 'red', fate: 'undecodable', shown: 2 },
    ]);
  });

  it('counts the bytes of useful frames (decodable and decoded) per color', () => {
    const c = new CoverageTracker();
    c.arrived(0, 'yellow', 1, 1000, 'decodable');
    c.decoded(0);
    c.arrived(1, 'red', 2, 500, 'decodable'); // handed to the decoder, which failed on it
    c.arrived(2, 'red', 2, 300, 'late');
    c.decoded(2); // not decodable: does not count
    assert.deepEqual(c.usefulBytes(), { green: 0, yellow: 1000, red: 0 });
  });

  it('has no columns before the display starts', () => {
    assert.deepEqual(new CoverageTracker().columns(10, () => undefined), []);
  });
});
