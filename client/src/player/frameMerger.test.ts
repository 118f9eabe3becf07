import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FrameMerger, RtpTimestampUnwrapper, type MergerDecision, type TemporalId } from './frameMerger';

const TPF = 3000;

function frame(rtpTimestamp: number, temporalId: TemporalId, keyframe = false) {
  return { rtpTimestamp: rtpTimestamp >>> 0, keyframe, temporalId, payload: `${keyframe ? 'K' : 'T' + temporalId}@${rtpTimestamp}` };
}
const key = (ts: number) => frame(ts, 0, true);

/** Compact view of decisions: "decode 3000", "skip 9000 missing-reference", "late 3000". */
function show(ds: MergerDecision<string>[]): string[] {
  return ds.map((d) => `${d.action} ${d.frame.rtpTimestamp}${d.action === 'skip' ? ' ' + d.reason : ''}`);
}

describe('FrameMerger', () => {
  it('decodes in-order frames as soon as they arrive', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF });
    const got: string[] = [];
    // TID pattern 0,2,1,2 per period of 4.
    const frames = [key(0), frame(3000, 2), frame(6000, 1), frame(9000, 2), frame(12000, 0), frame(15000, 2)];
    frames.forEach((f, i) => got.push(...show(m.push(f, i * 33))));
    assert.deepEqual(got, ['decode 0', 'decode 3000', 'decode 6000', 'decode 9000', 'decode 12000', 'decode 15000']);
    assert.equal(m.pendingCount, 0);
    assert.equal(m.nextDeadlineMs(), undefined);
  });

  it('takes a frame within half a frame of the next slot as in order', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF });
    m.push(key(0), 0);
    assert.deepEqual(show(m.push(frame(3003, 2), 33)), ['decode 3003']);
    assert.deepEqual(show(m.push(frame(6006, 1), 66)), ['decode 6006']);
    assert.deepEqual(show(m.push(frame(10600, 2), 99)), []); // more than 1.5 frames later: a frame is missing
  });

  it('holds an out-of-order frame until the missing one arrives', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF });
    m.push(key(0), 0);
    assert.deepEqual(show(m.push(frame(6000, 1), 10)), []);
    assert.equal(m.nextDeadlineMs(), 90);
    assert.deepEqual(show(m.push(frame(3000, 2), 20)), ['decode 3000', 'decode 6000']);
  });

  it('releases out-of-order frames at the playout deadline', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10);
    m.push(frame(9000, 2), 40);
    assert.deepEqual(show(m.poll(89)), []);
    // 3000 (TID 2) never came: it cannot have been a reference for 9000, but the merger cannot know.
    assert.deepEqual(show(m.poll(90)), ['decode 6000', 'decode 9000']);
  });

  it('counts the deadline from the oldest pending frame, releasing what comes before it', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(9000, 2), 0); // waits for 3000 and 6000
    m.push(frame(6000, 1), 50);
    assert.equal(m.nextDeadlineMs(), 80);
    assert.deepEqual(show(m.poll(80)), ['decode 6000', 'decode 9000']);
  });

  it('skips a TID 2 frame when the TID 1 frame of its period is missing', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(3000, 2), 33);
    m.push(frame(9000, 2), 100); // 6000 (TID 1) lost
    assert.deepEqual(show(m.poll(180)), ['skip 9000 missing-reference']);
    // The next base frame makes TID 2 decodable again.
    assert.deepEqual(show(m.push(frame(12000, 0), 200)), ['decode 12000']);
    assert.deepEqual(show(m.push(frame(15000, 2), 233)), ['decode 15000']);
  });

  it('decodes a TID 2 frame after a gap once a TID 1 frame has refreshed GOLDEN', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(6000, 1), 66); // 3000 missing: unknown layer
    assert.deepEqual(show(m.poll(146)), ['decode 6000']);
    assert.deepEqual(show(m.push(frame(9000, 2), 150)), ['decode 9000']);
  });

  it('skips every frame until a keyframe, at start and after a decoder error', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF });
    assert.deepEqual(show(m.push(frame(3000, 2), 0)), ['skip 3000 awaiting-keyframe']);
    assert.deepEqual(show(m.push(frame(6000, 1), 10)), ['skip 6000 awaiting-keyframe']);
    // A keyframe older than the skipped frames still starts the timeline.
    assert.deepEqual(show(m.push(key(0), 20)), ['decode 0']);
    // 3000 and 6000 were consumed while waiting, so 9000 follows a gap.
    assert.deepEqual(show(m.push(frame(9000, 2), 30)), []);
    assert.deepEqual(show(m.poll(110)), ['skip 9000 missing-reference']);

    m.awaitKeyframe();
    assert.deepEqual(show(m.push(frame(12000, 0), 40)), ['skip 12000 awaiting-keyframe']);
    assert.deepEqual(show(m.push(frame(15000, 2), 50)), ['skip 15000 awaiting-keyframe']);
    // A keyframe is decoded at once even though frames before it are missing.
    assert.deepEqual(show(m.push(key(24000), 60)), ['decode 24000']);
    assert.deepEqual(show(m.push(frame(27000, 2), 70)), ['decode 27000']);
  });

  it('follows RTP timestamps across the 32-bit wrap', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF });
    const start = 2 ** 32 - 2 * TPF;
    const got: string[] = [];
    got.push(...show(m.push(key(start), 0)));
    got.push(...show(m.push(frame(start + TPF, 2), 33)));
    // Arrives before the frame just before the wrap: held, then both released in order.
    got.push(...show(m.push(frame(start + 3 * TPF, 2), 50)));
    got.push(...show(m.push(frame(start + 2 * TPF, 1), 66)));
    assert.deepEqual(got, [`decode ${start}`, `decode ${start + TPF}`, 'decode 0', 'decode 3000']);
    // Late detection works across the wrap too.
    assert.deepEqual(show(m.push(frame(start + TPF, 2), 80)), [`late ${start + TPF}`]);
  });

  it('drops frames at or before the playout position as late', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10);
    assert.deepEqual(show(m.poll(90)), ['decode 6000']);
    assert.deepEqual(show(m.push(frame(3000, 2), 120)), ['late 3000']);
    assert.deepEqual(show(m.push(frame(6000, 1), 121)), ['late 6000']);
  });

  it('raises the playout deadline by the lateness of a frame that missed its slot, then decays it', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80, maxPlayoutDeadlineMs: 500 });
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10);
    assert.deepEqual(show(m.poll(90)), ['decode 6000']); // gave up on 3000 at t=90
    assert.deepEqual(show(m.push(frame(3000, 2), 190)), ['late 3000']); // 100 ms too late
    assert.equal(m.playoutDeadlineMs, 80 + 100 + 20);
    // The same delay again: now it makes it.
    m.push(frame(12000, 0), 200);
    assert.equal(m.nextDeadlineMs(), 400);
    assert.deepEqual(show(m.push(frame(9000, 2), 390)), ['decode 9000', 'decode 12000']);
    // In-order frames pull the deadline back toward its floor, never below it.
    let ts = 12000;
    const pattern: TemporalId[] = [2, 1, 2, 0];
    for (let i = 0; i < 5000; i++) m.push(frame((ts += TPF), pattern[i % 4]!), 400 + i);
    assert.ok(m.playoutDeadlineMs < 81 && m.playoutDeadlineMs >= 80, String(m.playoutDeadlineMs));
  });

  it('never raises the deadline above its cap', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80, maxPlayoutDeadlineMs: 300 });
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10);
    m.poll(90);
    m.push(frame(3000, 2), 5000);
    assert.equal(m.playoutDeadlineMs, 300);
  });

  it('after a missing base frame, nothing decodes until the next keyframe', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    const got: string[] = [];
    [key(0), frame(3000, 2), frame(6000, 1), frame(9000, 2)].forEach((f, i) => got.push(...show(m.push(f, i * 33))));
    // The base frame at 12000 is lost; 15000 (TID 2) and 18000 (TID 1) reference it.
    got.push(...show(m.push(frame(15000, 2), 200)), ...show(m.poll(280)));
    got.push(...show(m.push(frame(18000, 1), 300)));
    // The next period's base frame references the lost one too: only a keyframe helps.
    got.push(...show(m.push(frame(24000, 0), 400)), ...show(m.poll(480)));
    got.push(...show(m.push(key(27000), 500)));
    assert.deepEqual(got.slice(4), [
      'skip 15000 missing-reference',
      'skip 18000 awaiting-keyframe',
      'skip 24000 awaiting-keyframe',
      'decode 27000',
    ]);
  });

  it('a missing enhancement frame does not stop the base layer', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.push(key(0), 0);
    m.push(frame(3000, 2), 33);
    // 6000 (TID 1) lost
    assert.deepEqual(show(m.push(frame(9000, 2), 100)), []);
    assert.deepEqual(show(m.poll(180)), ['skip 9000 missing-reference']);
    assert.deepEqual(show(m.push(frame(12000, 0), 200)), ['decode 12000']);
  });

  it('waits the retransmission wait longer for a missing base frame when green is retransmitted', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.setRetransmission('base', 50);
    m.push(key(0), 0);
    [frame(3000, 2), frame(6000, 1), frame(9000, 2)].forEach((f, i) => m.push(f, (i + 1) * 33));
    // Base frame 12000 lost; 15000 arrives and waits 80 + 50 ms for it.
    m.push(frame(15000, 2), 165);
    assert.equal(m.nextDeadlineMs(), 165 + 130);
    assert.deepEqual(show(m.poll(244)), []);
    // The retransmission comes in time: both decode, the base chain holds.
    assert.deepEqual(show(m.push(frame(12000, 0), 240)), ['decode 12000', 'decode 15000']);
    assert.equal(m.isAwaitingKeyframe, false);
  });

  it('does not wait longer for a missing enhancement frame that is not retransmitted', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.setRetransmission('base', 50);
    m.push(key(0), 0);
    m.push(frame(6000, 1), 66); // 3000 (TID 2) missing
    assert.equal(m.nextDeadlineMs(), 66 + 80);
    // With every frame retransmitted, it does.
    m.setRetransmission('all', 50);
    assert.equal(m.nextDeadlineMs(), 66 + 130);
    m.setRetransmission('none', 50);
    assert.equal(m.nextDeadlineMs(), 66 + 80);
  });

  it('says when it awaits a keyframe: at start, after a missing base frame, until the keyframe', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    assert.equal(m.isAwaitingKeyframe, true);
    m.push(key(0), 0);
    assert.equal(m.isAwaitingKeyframe, false);
    m.push(frame(3000, 2), 33);
    m.push(frame(6000, 1), 66);
    m.push(frame(9000, 2), 99);
    m.push(frame(15000, 2), 165); // base frame 12000 never comes
    assert.deepEqual(show(m.poll(245)), ['skip 15000 missing-reference']);
    assert.equal(m.isAwaitingKeyframe, true);
    m.push(key(18000), 200);
    assert.equal(m.isAwaitingKeyframe, false);
  });

  it('treats a large timestamp jump as a new timeline that starts at a keyframe', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, maxJumpTicks: 90_000 });
    m.push(key(1_000_000), 0);
    assert.deepEqual(show(m.push(frame(3000, 0), 10)), ['skip 3000 awaiting-keyframe']);
    assert.deepEqual(show(m.push(key(6000), 20)), ['decode 6000']);
    assert.deepEqual(show(m.push(frame(9000, 2), 30)), ['decode 9000']);
  });

  it('a frame out of the layer pattern\'s phase follows a keyframe that never came: nothing decodes until the next one', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    [key(0), frame(3000, 2), frame(6000, 1), frame(9000, 2), frame(12000, 0), frame(15000, 2)].forEach((f, i) => m.push(f, i * 33));
    // A requested keyframe at 18000 (not a base slot of the old phase) is lost; its pattern 2,1,2,0 follows.
    const got = [...show(m.push(frame(21000, 2), 200)), ...show(m.poll(280))];
    got.push(...show(m.push(frame(24000, 1), 300)), ...show(m.push(frame(27000, 2), 333)), ...show(m.push(frame(30000, 0), 366)));
    assert.deepEqual(got, ['skip 21000 missing-reference', 'skip 24000 missing-reference', 'skip 27000 awaiting-keyframe', 'skip 30000 awaiting-keyframe']);
    assert.equal(m.isAwaitingKeyframe, true);
    assert.deepEqual(show(m.push(key(33000), 400)), ['decode 33000']);
    assert.deepEqual(show(m.push(frame(36000, 2), 433)), ['decode 36000']);
  });
});

/** The sound plays timestamp ts's instant (ts / 90 ms) `latenessMs` later. */
const soundAt = (latenessMs: number) => (ts: number) => ts / 90 + latenessMs;

/**
 * Behind a congested PELS router, 10 s at 30 fps of the pattern 0,2,1,2: green (TID 0) arrives 50 ms after its
 * instant, yellow (TID 1) 550 ms (its queue), red (TID 2) never. Returns, per decoded base frame, how long after its
 * instant it was released (poll() called at every nextDeadlineMs, as the player does).
 */
function congested(m: FrameMerger<string>): number[] {
  const arrivals: { at: number; f: ReturnType<typeof frame> }[] = [];
  for (let i = 0; i < 300; i++) {
    const tid = i % 4 === 0 ? 0 : i % 4 === 2 ? 1 : 2;
    if (tid === 2) continue;
    arrivals.push({ at: i * (1000 / 30) + (tid === 0 ? 50 : 550), f: i === 0 ? key(0) : frame(i * TPF, tid) });
  }
  arrivals.sort((a, b) => a.at - b.at);
  const baseRelease: number[] = [];
  const note = (ds: MergerDecision<string>[], at: number) => {
    for (const d of ds) if (d.action === 'decode' && d.frame.temporalId === 0) baseRelease.push(at - d.timestamp / 90);
  };
  for (const { at, f } of arrivals) {
    for (let due = m.nextDeadlineMs(); due !== undefined && due <= at; due = m.nextDeadlineMs()) note(m.poll(due), due);
    note(m.push(f, at), at);
  }
  return baseRelease;
}

describe('FrameMerger with sound', () => {
  it('gives up a missing enhancement frame once the sound has played its instant, before the deadline', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.setSoundPlayout(soundAt(30));
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10); // 3000 (TID 2) missing: the sound plays it at 33.3 + 30
    assert.ok(Math.abs(m.nextDeadlineMs()! - 63.33) < 0.01);
    assert.deepEqual(show(m.poll(63)), []);
    assert.deepEqual(show(m.poll(64)), ['decode 6000']);
  });

  it('keeps the deadline while the sound has not played the missing instant, and without sound', () => {
    const later = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    later.setSoundPlayout(soundAt(500));
    const unknown = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    unknown.setSoundPlayout(() => null);
    for (const m of [later, unknown]) {
      m.push(key(0), 0);
      m.push(frame(6000, 1), 10);
      assert.equal(m.nextDeadlineMs(), 90);
    }
  });

  it('waits its deadline for a missing base frame even after its sound played: giving it up costs a keyframe', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.setSoundPlayout(soundAt(0));
    m.setRetransmission('base', 200);
    [key(0), frame(3000, 2), frame(6000, 1), frame(9000, 2)].forEach((f, i) => m.push(f, i * 33));
    m.push(frame(15000, 2), 170); // 12000 (base) missing: its retransmission may come
    assert.equal(m.nextDeadlineMs(), 170 + 80 + 200);
    assert.deepEqual(show(m.push(frame(12000, 0), 300)), ['decode 12000', 'decode 15000']);
  });

  it('is not raised by a frame that comes after its sound played', () => {
    const m = new FrameMerger<string>({ ticksPerFrame: TPF, playoutDeadlineMs: 80 });
    m.setSoundPlayout(soundAt(30));
    m.push(key(0), 0);
    m.push(frame(6000, 1), 10);
    m.poll(64);
    assert.deepEqual(show(m.push(frame(3000, 2), 500)), ['late 3000']);
    assert.equal(m.playoutDeadlineMs, 80);
  });

  it('behind a congested PELS router (red lost, yellow 500 ms late), releases base frames as they come', () => {
    const withSound = new FrameMerger<string>({ ticksPerFrame: TPF });
    withSound.setSoundPlayout(soundAt(100));
    const released = congested(withSound).slice(30); // the last 7.5 s
    assert.ok(Math.max(...released) <= 50.01, `base frames released up to ${Math.max(...released)} ms after their instant`);
    // Without sound the late yellow frames raise the deadline, and every base frame waits it (the old behaviour,
    // which with sound put the pictures a second behind their sound).
    const silent = congested(new FrameMerger<string>({ ticksPerFrame: TPF })).slice(30);
    assert.ok(Math.min(...silent) > 500, `without sound, base frames released from ${Math.min(...silent)} ms after their instant`);
  });
});

describe('RtpTimestampUnwrapper', () => {
  it('unwraps forward and backward across 2^32', () => {
    const u = new RtpTimestampUnwrapper();
    assert.equal(u.unwrap(2 ** 32 - 10), 2 ** 32 - 10);
    assert.equal(u.unwrap(5), 2 ** 32 + 5);
    assert.equal(u.unwrap(2 ** 32 - 1), 2 ** 32 - 1);
    assert.equal(u.unwrap(100), 2 ** 32 + 100);
  });
});
