import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RtpTimestampUnwrapper } from '../player/frameMerger';
import { FrameIndexer } from './frameIndex';

const T = 3000;
const rtp = (base: number, index: number) => (base + index * T) % 2 ** 32;

describe('FrameIndexer', () => {
  it('maps timestamps to the stream index, through the 32-bit wrap', () => {
    const cases = [
      { base: 0, start: 0 },
      { base: 2 ** 32 - 4500, start: 10 }, // wraps between index 1 and 2 after the base
      { base: 123_456_789, start: 1_431_000 }, // a stream 13 hours old: index * T is past 2^32
      { base: 4_000_000_000, start: 2_900_000 }, // index * T past 2 * 2^32
    ];
    for (const { base, start } of cases) {
      const unwrap = new RtpTimestampUnwrapper();
      const indexer = new FrameIndexer(base, T, start - 3);
      for (let i = start; i < start + 2000; i += 1) {
        assert.equal(indexer.indexOf(unwrap.unwrap(rtp(base, i))), i, `base ${base} index ${i}`);
      }
    }
  });

  it('rounds timestamps off the frame grid to the nearest frame', () => {
    const indexer = new FrameIndexer(1000, T, 0);
    assert.equal(indexer.indexOf(1000 + 5 * T + 1), 5);
  });

  it('a hint off by thousands of frames still finds the index', () => {
    const base = 3_000_000_000;
    const indexer = new FrameIndexer(base, T, 50_000);
    assert.equal(indexer.indexOf(rtp(base, 40_000)), 40_000);
  });
});
