import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DisplayClock, type DisplaySample } from './displayClock';

const F = 100; // frame period, ms: round numbers
const opts = { frameMs: F, marginMs: 10, decayMsPerS: 0 };

/** Feeds frames decoded at the given times and advances the clock to `untilMs`, in time order. */
function run(clock: DisplayClock, decodedAt: [index: number, ms: number][], untilMs: number): DisplaySample[] {
  const events = [...decodedAt].sort((a, b) => a[1] - b[1]);
  const out: DisplaySample[] = [];
  for (let now = 0; now <= untilMs; now++) {
    for (const [index, at] of events) if (at === now) clock.decoded(index, now);
    out.push(...clock.advance(now));
  }
  return out;
}

const shown = (samples: DisplaySample[]) => samples.map((s) => [s.index, s.shown]);

describe('DisplayClock', () => {
  it('shows every frame in its own period when all arrive in time', () => {
    const clock = new DisplayClock(opts);
    // Frame i decoded at 1000 + i * F + jitter of up to 20 ms; the first frame is the latest of all.
    const samples = run(clock, [0, 1, 2, 3, 4, 5].map((i) => [i, 1020 + i * F - (i % 3) * 10]), 1600);
    assert.deepEqual(shown(samples), [0, 1, 2, 3, 4, 5].map((i) => [i, i]));
    assert.deepEqual(samples.map((s) => s.t), [1030, 1130, 1230, 1330, 1430, 1530], 'latest arrival + margin, one period apart');
  });

  it('repeats the last decoded frame through periods whose frame is missing', () => {
    const clock = new DisplayClock(opts);
    // Only the base layer: every 4th frame.
    const samples = run(clock, [0, 4, 8].map((i) => [i, 1000 + i * F]), 1010 + 10 * F);
    assert.deepEqual(shown(samples), [
      [0, 0], [1, 0], [2, 0], [3, 0],
      [4, 4], [5, 4], [6, 4], [7, 4],
      [8, 8], [9, 8], [10, 8],
    ]);
  });

  it('a frame later than any before it is a repeat in its period, and raises the delay', () => {
    const clock = new DisplayClock(opts);
    const samples = run(clock, [[0, 1000], [1, 1100], [2, 1250], [3, 1300], [4, 1400]], 1500);
    // Frame 2 came 150 ms after frame 1: period 2 (due at 1210) repeated frame 1.
    assert.deepEqual(shown(samples).slice(0, 3), [[0, 0], [1, 1], [2, 1]]);
    // The delay is now 50 ms more: period 3 begins at 1360, frame 3 (decoded at 1300) is in time.
    assert.deepEqual(samples[3], { t: 1360, index: 3, shown: 3 });
    assert.deepEqual(samples[4], { t: 1460, index: 4, shown: 4 });
  });

  it('shows a frame that missed its period in the next one, unless a newer frame is on screen', () => {
    const clock = new DisplayClock(opts);
    run(clock, [[0, 1000]], 1120); // period 1 began at 1110 and repeated frame 0
    assert.equal(clock.decoded(1, 1150), true);
    // Frame 1 raised the delay by 50 ms: period 2 begins at 1260, without frame 2, so frame 1 shows.
    assert.deepEqual(clock.advance(1260), [{ t: 1260, index: 2, shown: 1 }]);
    assert.equal(clock.decoded(1, 1270), false, 'frame 1 is already on screen');
  });

  it('shrinks the delay back after a late frame', () => {
    const clock = new DisplayClock({ ...opts, decayMsPerS: 100 });
    clock.decoded(0, 1500); // lateness 1500
    clock.decoded(1, 1100); // an earlier frame cannot be shown before frame 0 anyway
    const firstDue = clock.nextDueMs()!;
    assert.equal(Math.round(firstDue), Math.round((1500 + 0.1 * 1500 + 10) / 1.1));
    // Ten seconds later the delay has shrunk by about 1 s.
    clock.advance(11_000);
    const due = clock.nextDueMs()!;
    const index = Math.round((due - 10 - 500) / F);
    assert.ok(Math.abs(due - (500 + 10 + index * F)) < 60, `due ${due}`);
  });

  it('after the caller stopped for long, resumes at the frame due now without catching up', () => {
    const clock = new DisplayClock({ ...opts, maxCatchUpMs: 1000 });
    run(clock, [[0, 1000]], 1200);
    const samples = clock.advance(11_000);
    assert.equal(samples.length, 1);
    assert.deepEqual(samples[0], { t: 10_910, index: 99, shown: 0 });
  });

  it('starts a new timeline for a frame far off its period either way (a restarted stream)', () => {
    for (const [index, at] of [[3, 1300], [900, 1300]] as const) {
      const clock = new DisplayClock(opts);
      run(clock, [[500, 1000]], 1200);
      assert.equal(clock.decoded(index, at), true);
      assert.deepEqual(clock.advance(at + 10), [{ t: at + 10, index, shown: index }]);
    }
  });
});

describe('soundLeadMs', () => {
  it('is null without sound, then when frames are due by the video minus when the sound plays their instants', () => {
    const clock = new DisplayClock(opts);
    clock.decoded(0, 250); // 250 ms late: frames are due 260 ms after their instant
    assert.equal(clock.soundLeadMs(300), null);
    clock.setSoundLateness(100);
    assert.equal(clock.soundLeadMs(300), 160); // the sound plays 160 ms before the frames show
    clock.setSoundLateness(300);
    assert.equal(clock.soundLeadMs(300), -40); // the frames wait 40 ms for the sound
  });
});

describe('with sound', () => {
  it('a frame far later than the others is a repeat in its period: the frames after it keep their sound', () => {
    const clock = new DisplayClock({ ...opts, decayMsPerS: 10 });
    clock.setSoundLateness(200);
    // Frames ready 150 ms before their sound plays; frame 10 comes 700 ms after its instant (a stall), when 15 is shown.
    const decoded: [number, number][] = Array.from({ length: 30 }, (_, i) => [i, i * F + (i === 10 ? 700 : 50)]);
    const samples = run(clock, decoded, 29 * F + 200);
    assert.deepEqual(samples.find((s) => s.index === 10), { t: 10 * F + 200, index: 10, shown: 9 });
    const after = samples.filter((s) => s.index > 10);
    assert.equal(after.length, 19);
    for (const s of after) assert.deepEqual(s, { t: s.index * F + 200, index: s.index, shown: s.index }, 'each frame with its sound');
    assert.equal(clock.soundLeadMs(29 * F + 200), 50 + 10 - 200, 'the frames wait for the sound: no hold asked for');
  });

  it('frames usually ready after their sound are shown when ready (plus the margin), and soundLeadMs says by how much', () => {
    const clock = new DisplayClock(opts);
    clock.setSoundLateness(100);
    const samples = run(clock, Array.from({ length: 20 }, (_, i): [number, number] => [i, i * F + 250 - (i % 2) * 20]), 19 * F + 260);
    for (const s of samples) assert.deepEqual(s, { t: s.index * F + 260, index: s.index, shown: s.index });
    assert.equal(samples.length, 20);
    assert.equal(clock.soundLeadMs(19 * F + 260), 160);
  });
});
