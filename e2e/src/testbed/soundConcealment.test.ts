import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AudioReceiveStats } from '@pels/shared/protocol/playerHook';
import { fedConcealment } from './soundConcealment';

/** Readings a second apart: per second, the packets the server sent (of 50 at 20 ms) and the samples concealed (of 48000). */
function readings(seconds: { sent: number; concealed: number }[]): AudioReceiveStats[] {
  const out: AudioReceiveStats[] = [];
  let packets = 0;
  let concealed = 0;
  seconds.forEach((s, i) => {
    if (i > 0) {
      packets += s.sent;
      concealed += s.concealed;
    }
    out.push({
      // A tenth of them lost.
      packetsReceived: Math.round(packets * 0.9),
      packetsLost: packets - Math.round(packets * 0.9),
      concealedSamples: concealed,
      totalSamplesReceived: i * 48000,
      silentConcealedSamples: 0,
      fecPacketsReceived: 0,
      concealmentEvents: 0,
      nackCount: 0,
      insertedSamplesForDeceleration: 0,
      removedSamplesForAcceleration: 0,
      jitterBufferDelay: 0,
      jitterBufferEmittedCount: 0,
      atMs: 5000 + i * 1000,
    });
  });
  return out;
}

test('concealment over the seconds the sound came at real time; a stall and its catching up apart', () => {
  const r = fedConcealment(
    readings([{ sent: 0, concealed: 0 }, { sent: 50, concealed: 480 }, { sent: 12, concealed: 30000 }, { sent: 88, concealed: 9000 }, { sent: 50, concealed: 1440 }]),
  );
  assert.deepEqual(r, { fedSeconds: 2, starvedSeconds: 2, concealedRatio: 0.02 });
});

test('real time by the sequence numbers, whatever the wire lost: 45 to 55 of 50 is fed, 44 and 56 are not', () => {
  const one = (sent: number) => fedConcealment(readings([{ sent: 0, concealed: 0 }, { sent, concealed: 0 }]));
  assert.deepEqual([45, 55].map((n) => one(n).fedSeconds), [1, 1]);
  assert.deepEqual([44, 56].map((n) => one(n).starvedSeconds), [1, 1]);
});

test('the same report twice is no interval; no fed interval, no ratio', () => {
  const [a, b] = readings([{ sent: 0, concealed: 0 }, { sent: 10, concealed: 40000 }]);
  assert.deepEqual(fedConcealment([a!, a!, b!]), { fedSeconds: 0, starvedSeconds: 1, concealedRatio: null });
  assert.deepEqual(fedConcealment([]), { fedSeconds: 0, starvedSeconds: 0, concealedRatio: null });
});
