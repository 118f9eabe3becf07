import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClockOffset } from './clockOffset';

test('the offset is taken from the round trip that was shortest; none before a sample', () => {
  const c = new ClockOffset();
  assert.equal(c.offsetMs, null);
  // The server runs 1000 ms ahead. A slow answer (queued 300 ms on the way back) is off by 150 ms.
  c.add({ sentMs: 0, receivedMs: 320, serverMs: 1010 });
  assert.equal(c.offsetMs, 850);
  c.add({ sentMs: 1000, receivedMs: 1020, serverMs: 2010 });
  assert.equal(c.offsetMs, 1000);
  assert.equal(c.uncertaintyMs, 10);
  // A sample whose answer came before its request (a clock step) is not taken.
  c.add({ sentMs: 5000, receivedMs: 4000, serverMs: 0 });
  assert.equal(c.offsetMs, 1000);
});

test('old samples leave: the offset follows a clock that moved', () => {
  const c = new ClockOffset();
  c.add({ sentMs: 0, receivedMs: 2, serverMs: 1001 });
  for (let i = 1; i <= 8; i++) c.add({ sentMs: i * 10_000, receivedMs: i * 10_000 + 10, serverMs: i * 10_000 + 5 + 2000 });
  assert.equal(c.offsetMs, 2000);
});
