import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bottleneckSample } from './bottleneckAgent';

const q = (bytes: number, packets: number, dropped = 0, backlogBytes = 0) => ({ bytes, packets, dropped, backlogBytes });

test('eq. 11: p = (R - C) / R from bytes offered to the PELS queues', () => {
  // In 100 ms: 10 kB sent + 2.5 kB more backlog + 5 drops (red sent nothing: 1200 B assumed) = 18.5 kB = 1480 kb/s.
  const prev = { green: q(0, 0), yellow: q(0, 0), red: q(0, 0) };
  const cur = { green: q(5000, 5), yellow: q(5000, 5, 0, 2500), red: q(0, 0, 5) };
  const s = bottleneckSample(prev, cur, 100, 1000, 0.5, 'pels');
  assert.equal(s.offeredKbps, 1480);
  // Internet idle: PELS may use the whole link.
  assert.equal(s.capacityKbps, 1000);
  assert.equal(s.p, 480 / 1480);
});

test('below capacity p is negative; an idle queue gives -1', () => {
  const prev = { green: q(0, 0) };
  const cur = { green: q(5000, 5) };
  const s = bottleneckSample(prev, cur, 100, 1000, 0.5, 'pels');
  assert.equal(s.offeredKbps, 400);
  assert.equal(s.p, -1); // (400 - 1000) / 400 = -1.5, bounded
  assert.equal(bottleneckSample(prev, { green: q(10000, 10) }, 100, 1000, 0.5, 'pels').p, -0.25);
  assert.equal(bottleneckSample(cur, cur, 100, 1000, 0.5, 'pels').p, -1);
});

test('a busy Internet queue leaves the PELS queue its weighted share', () => {
  const prev = { green: q(0, 0), internet: q(0, 0) };
  const cur = { green: q(10000, 10), internet: q(12500, 10) }; // Internet used 1000 kb/s of 1000
  const s = bottleneckSample(prev, cur, 100, 1000, 0.5, 'pels');
  assert.equal(s.capacityKbps, 500);
  assert.equal(s.p, (800 - 500) / 800);
});

test('the FIFO router measures the single video FIFO', () => {
  const s = bottleneckSample({ video: q(0, 0) }, { video: q(15000, 15), green: q(99999, 99) }, 100, 1000, 0.5, 'fifo');
  assert.equal(s.offeredKbps, 1200);
});
