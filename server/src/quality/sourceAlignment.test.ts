import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceAlignment } from './sourceAlignment';

const p = (v: number) => new Uint8Array([v]);

describe('SourceAlignment', () => {
  it('pairs the k-th plane with the frame of pts k, whichever comes first', () => {
    const a = new SourceAlignment();
    assert.equal(a.encoded(0, 500), null);
    assert.deepEqual(a.source(0, p(0)), { index: 500, plane: p(0) });
    assert.equal(a.source(1, p(1)), null);
    assert.deepEqual(a.encoded(1, 501), { index: 501, plane: p(1) });
  });

  it("pairs by pts from 0 when the run's first frames never come (their sets dropped): no shift", () => {
    const a = new SourceAlignment();
    // As measured under load: the first 67 frame sets of a WHIP run dropped, the planes all written.
    for (let k = 0; k < 67; k++) a.source(k, p(k));
    assert.equal(a.encoded(67, 1067), null, 'its plane is still to come');
    assert.deepEqual(a.source(67, p(67)), { index: 1067, plane: p(67) });
    a.source(68, p(68));
    assert.deepEqual(a.encoded(68, 1068), { index: 1068, plane: p(68) });
  });

  it('leaves the plane of a frame the encoder dropped unpaired', () => {
    const a = new SourceAlignment();
    a.encoded(0, 10);
    a.source(0, p(0));
    a.source(1, p(1)); // pts 1 never encoded
    a.source(2, p(2));
    assert.deepEqual(a.encoded(2, 11), { index: 11, plane: p(2) });
  });

  it('pairs by position when the reader dropped planes: the next ones are not shifted', () => {
    const a = new SourceAlignment();
    a.source(0, p(0));
    // Planes 1-3 dropped by the reader (the worker was behind).
    a.source(4, p(4));
    assert.equal(a.encoded(1, 101), null);
    assert.deepEqual(a.encoded(4, 104), { index: 104, plane: p(4) });
  });

  it('forgets the oldest unpaired entries', () => {
    const a = new SourceAlignment();
    a.encoded(0, 0);
    for (let k = 1; k < 100; k++) a.encoded(k, k);
    assert.equal(a.source(0, p(0)), null, 'position 0 was forgotten');
    for (let k = 1; k < 99; k++) a.source(k, p(k));
    assert.deepEqual(a.source(99, p(99)), { index: 99, plane: p(99) });
  });
});
