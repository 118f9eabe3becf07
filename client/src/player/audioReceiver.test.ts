import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufferMsBetween, type AudioReceiveStats } from './audioReceiver';

const at = (atMs: number, emitted: number, delayS: number): AudioReceiveStats => ({
  packetsReceived: 0,
  packetsLost: 0,
  concealedSamples: 0,
  totalSamplesReceived: 0,
  silentConcealedSamples: 0,
  fecPacketsReceived: 0,
  concealmentEvents: 0,
  nackCount: 0,
  insertedSamplesForDeceleration: 0,
  removedSamplesForAcceleration: 0,
  jitterBufferDelay: delayS,
  jitterBufferEmittedCount: emitted,
  atMs,
});

test("the jitter buffer's delay over the last interval, when the sound played out at its rate", () => {
  // 1 s, 48000 samples emitted, each 60 ms in the buffer.
  assert.ok(Math.abs(bufferMsBetween(at(1000, 48000, 10), at(2000, 96000, 10 + 48000 * 0.06), 48000)! - 60) < 1e-9);
  assert.equal(bufferMsBetween(null, at(2000, 96000, 12), 48000), null);
  // A stalled playout (a quarter of the samples) or one catching up: no measure.
  assert.equal(bufferMsBetween(at(1000, 48000, 10), at(2000, 60000, 20), 48000), null);
  assert.equal(bufferMsBetween(at(1000, 48000, 10), at(2000, 120000, 20), 48000), null);
  assert.equal(bufferMsBetween(at(1000, 48000, 10), at(1000, 48000, 10), 48000), null);
});
