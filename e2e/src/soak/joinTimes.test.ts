import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Life } from './churnViewers';
import { joinTimes, rejoinTimes } from './joinTimes';

/** A life as the receivers report it, with only what join times read filled in. */
function life(startedMs: number, joinMs: number | null, extra: Partial<Life> = {}): Life {
  return { startedMs, joinedMs: joinMs === null ? 0 : startedMs + joinMs, joinMs, leftMs: startedMs + 30_000, cut: false, rejoins: undefined, ...extra } as unknown as Life;
}

test('joins started inside the windows against the rest; a failed join counts, a cut life that never joined does not', () => {
  const storm = [{ from: 10_000, to: 30_000 }];
  const lives = [life(1000, 800), life(12_000, 4000), life(13_000, 6000), life(14_000, null), life(15_000, null, { cut: true }), life(40_000, 900), life(50_000, 1000)];
  assert.deepEqual(joinTimes(lives, storm, true), { started: 3, failed: 1, medianMs: 5000, p90Ms: 4000, maxMs: 6000 });
  assert.deepEqual(joinTimes(lives, storm, false), { started: 3, failed: 0, medianMs: 900, p90Ms: 900, maxMs: 1000 });
  assert.deepEqual(joinTimes([], storm, true), { started: 0, failed: 0, medianMs: null, p90Ms: null, maxMs: null });
});

test("a lost edge's viewers: each loss, back or not", () => {
  const lives = [
    life(0, 500, { rejoins: [{ lostAtMs: 5000, ms: 1700, from: 'edge-1', to: 'edge-2', attempts: 1 }] }),
    life(0, 500, { rejoins: [{ lostAtMs: 5000, ms: 2300.4, from: 'edge-1', to: 'edge-2', attempts: 2 }, { lostAtMs: 9000, ms: null, from: 'edge-2', attempts: 3 }] }),
    life(0, 500),
  ];
  assert.deepEqual(rejoinTimes(lives), { lost: 3, notBack: 1, medianMs: 2000, maxMs: 2300 });
});
