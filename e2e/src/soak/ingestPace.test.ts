import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingestPace, type FrameCount } from './ingestPace';

/** A counter sampled every 250 ms: 30 frames a second, then `stallS` without frames, then `burstX` times real time until caught up. */
function counter(stallFromS: number, stallS: number, burstX: number, untilS: number): FrameCount[] {
  const out: FrameCount[] = [];
  let frames = 0;
  let owed = 0;
  for (let t = 0; t <= untilS * 1000; t += 250) {
    const s = t / 1000;
    if (s > stallFromS && s <= stallFromS + stallS) owed += 7.5;
    else {
      const extra = Math.min(owed, 7.5 * (burstX - 1));
      frames += 7.5 + extra;
      owed -= extra;
    }
    out.push({ t, frames });
  }
  return out;
}

test('real time throughout: a peak of 1x and no catch-up', () => {
  const p = ingestPace(counter(100, 0, 1, 20), 5000, 20_000, 30);
  assert.deepEqual(p, { peakX: 1, fastForMs: 0 });
});

test('a 5 s stall caught up at 2.4x: the peak, and how long after the stall the ingest ran fast', () => {
  // 150 frames owed, 1.4 x 30 = 42 extra a second: about 3.6 s of catch-up after the stall ends at 10 s.
  const p = ingestPace(counter(5, 5, 2.4, 30), 10_000, 30_000, 30)!;
  assert.equal(p.peakX, 2.4);
  assert.ok(p.fastForMs >= 3000 && p.fastForMs <= 4500, String(p.fastForMs));
});

test('a counter that stops (the stream gone) has no second above real time; none fits an empty range', () => {
  const samples = counter(5, 100, 1, 20);
  assert.deepEqual(ingestPace(samples, 8000, 20_000, 30), { peakX: 0, fastForMs: 0 });
  assert.equal(ingestPace(samples, 50_000, 60_000, 30), null);
});
