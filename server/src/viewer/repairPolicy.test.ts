import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LossDiagnosis } from '@pels/shared/protocol/api';
import { INITIAL_REPAIR, MAX_OPEN_AFTER_STEPS, nextRepair, OPEN_AFTER_STEPS, RELAX_STEPS, type RepairState } from './repairPolicy';

// 1000 kb/s sent (green 400, yellow 350, red 250) at a rate of 1250: 250 kb/s of room.
const SENT = { green: 400, yellow: 350, red: 250 };
const input = (diagnosis: LossDiagnosis, wireLoss: number | null, rateKbps = 1250, sentKbps = SENT) => ({ congestion: { diagnosis, wireLoss }, rateKbps, sentKbps });

/** The repaired colors after each reading, from the start. */
function run(...inputs: ReturnType<typeof input>[]): string[] {
  let s: RepairState = INITIAL_REPAIR;
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

test('unknown or impossible readings repair green only and never throw', () => {
  const nan = { green: NaN, yellow: 0, red: 0 };
  // Wire loss not measured: what retransmission would cost is unknown.
  for (const bad of [input('wire-loss', null), input('wire-loss', 1), input('wire-loss', -0.1), input('wire-loss', NaN), input('wire-loss', 0.1, NaN), input('wire-loss', 0.1, 1250, nan)]) {
    assert.deepEqual(run(input('wire-loss', 0.1), input('wire-loss', 0.1), bad).at(-1), 'green');
  }
});

test('backoff: congestion that closes an opening doubles the wire-loss readings the next one waits for; calm readings halve it again', () => {
  const wire = input('wire-loss', 0.1);
  const congestion = input('congestion', 0.1);
  let s: RepairState = INITIAL_REPAIR;
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
