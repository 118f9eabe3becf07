import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LossDiagnosis } from '@pels/shared/protocol/api';
import { INITIAL_REPAIR, MAX_OPEN_AFTER_STEPS, nextRepair, OPEN_AFTER_STEPS, RELAX_STEPS, SENT_READINGS, type RepairState } from './repairPolicy';

// 1000 kb/s sent (green 400, yellow 350, red 250) at a rate of 1250: 250 kb/s of room.
const SENT = { green: 400, yellow: 350, red: 250 };
const input = (diagnosis: LossDiagnosis, wireLoss: number | null, rateKbps = 1250, sentKbps = SENT) => ({ congestion: { diagnosis, wireLoss }, rateKbps, sentKbps });

/** A viewer a few seconds in: its sent rate read often enough to judge the room (clear readings, 1000 kb/s sent). */
const warm = (): RepairState => Array.from({ length: SENT_READINGS }).reduce<RepairState>((s) => nextRepair(s, input('clear', 0)), INITIAL_REPAIR);

/** The repaired colors after each reading, from a warm start. */
function run(...inputs: ReturnType<typeof input>[]): string[] {
  let s = warm();
  return inputs.map((i) => (s = nextRepair(s, i)).repaired.join(' '));
}

test('wire loss with room: yellow and red open at the second reading in a row, not the first', () => {
  assert.equal(OPEN_AFTER_STEPS, 2);
  // 10% wire loss: 1/9 of the sent bytes again; with green's 44 kb/s, yellow needs 83 (x1.5 to open: 125), red 111 (167). Room 250.
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1)), ['green', 'green yellow red', 'green yellow red']);
  // A clear reading between two wire-loss ones starts the count again.
  assert.deepEqual(run(input('wire-loss', 0.1), input('clear', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1)), ['green', 'green', 'green', 'green yellow red']);
});

test('congestion closes at once, whatever came before; a clear reading keeps what is open', () => {
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('clear', 0.1), input('congestion', 0.1), input('wire-loss', 0.1)), [
    'green',
    'green yellow red',
    'green yellow red',
    'green',
    'green',
  ]);
});

test('red opens only with yellow, each when the room covers it: less room, yellow only; none, green only', () => {
  // Room 150: yellow (125 to open) yes, red (167) no.
  assert.deepEqual(run(input('wire-loss', 0.1, 1150), input('wire-loss', 0.1, 1150)), ['green', 'green yellow']);
  // At 20% wire loss yellow alone needs 1.5 x 0.25 x 750 = 281: no room for any.
  assert.deepEqual(run(input('wire-loss', 0.2), input('wire-loss', 0.2)), ['green', 'green']);
  // No room at all: the rate is what is sent.
  assert.deepEqual(run(input('wire-loss', 0.1, 1000), input('wire-loss', 0.1, 1000)), ['green', 'green']);
});

test('hysteresis: open, a color stays while the room covers its need (no margin), and closes when it does not', () => {
  // Opened with room 250; at room 120 red (111) stays, yellow (83) too; they would not open there (167, 125).
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1, 1120)), ['green', 'green yellow red', 'green yellow red']);
  assert.deepEqual(run(input('wire-loss', 0.1, 1120), input('wire-loss', 0.1, 1120)), ['green', 'green']);
  // Room 100: red (111) closes, yellow stays.
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1, 1100)), ['green', 'green yellow red', 'green yellow']);
});

test('unknown or impossible readings repair green only, a sent rate that is none is left out; nothing throws', () => {
  // Wire loss not measured: what retransmission would cost is unknown.
  for (const bad of [input('wire-loss', null), input('wire-loss', 1), input('wire-loss', -0.1), input('wire-loss', NaN), input('wire-loss', 0.1, NaN)]) {
    assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), bad).at(-1), 'green');
  }
  const nan = { green: NaN, yellow: 0, red: 0 };
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1, 1250, nan)).at(-1), 'green yellow red');
  let s = INITIAL_REPAIR;
  for (let i = 0; i < 10; i++) s = nextRepair(s, input('wire-loss', 0.1, 1250, nan));
  assert.deepEqual(s.repaired, ['green'], 'no sent rate read yet');
});

test('the sent rate is smoothed: a one-second burst does not close the gate, a flow held at the rate never opens it', () => {
  const burst = { green: 700, yellow: 350, red: 250 };
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), input('wire-loss', 0.1, 1250, burst), input('wire-loss', 0.1)), [
    'green',
    'green yellow red',
    'green yellow red',
    'green yellow red',
  ]);
  // Frame selection keeps a rate-limited flow at 1000 kb/s on average, 700 one second and 1300 the next: no room.
  const low = { green: 280, yellow: 245, red: 175 };
  const high = { green: 520, yellow: 455, red: 325 };
  let s = INITIAL_REPAIR;
  for (let i = 0; i < 20; i++) {
    s = nextRepair(s, input('wire-loss', 0.1, 1000, i % 2 ? high : low));
    assert.deepEqual(s.repaired, ['green'], `reading ${i}`);
  }
});

test('an opening the room ends backs off too: the room back, the next opening waits for a run twice as long', () => {
  // Room 250, then the rate falls to what is sent (no room), then back.
  const tight = input('wire-loss', 0.1, 1000);
  assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), tight, ...Array(4).fill(input('wire-loss', 0.1))), [
    'green',
    'green yellow red',
    'green',
    'green',
    'green',
    'green',
    'green yellow red',
  ]);
});

test('backoff: congestion that closes an opening doubles the wire-loss readings the next one waits for; calm readings halve it again', () => {
  const wire = input('wire-loss', 0.1);
  const congestion = input('congestion', 0.1);
  let s = warm();
  const step = (i: ReturnType<typeof input>, n = 1) => {
    for (let k = 0; k < n; k++) s = nextRepair(s, i);
    return s.repaired.length;
  };
  // Congestion while closed costs nothing.
  step(congestion);
  assert.equal(s.openAfter, OPEN_AFTER_STEPS);
  assert.equal(step(wire, 2), 3);
  // Closed by congestion: 4 readings the next time, then 8, up to the cap.
  assert.equal(step(congestion), 1);
  assert.equal(step(wire, 3), 1);
  assert.equal(step(wire), 3);
  step(congestion);
  assert.equal(s.openAfter, 8);
  for (let k = 0; k < 5; k++) {
    step(wire, s.openAfter);
    step(congestion);
  }
  assert.equal(s.openAfter, MAX_OPEN_AFTER_STEPS);
  // A long calm relaxes it step by step.
  step(wire, RELAX_STEPS);
  assert.equal(s.openAfter, MAX_OPEN_AFTER_STEPS / 2);
  assert.equal(s.repaired.length, 3);
  step(input('clear', 0.1), 3 * RELAX_STEPS);
  assert.equal(s.openAfter, OPEN_AFTER_STEPS);
});
