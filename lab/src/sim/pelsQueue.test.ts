import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TrafficClass } from './packet';
import { PelsQueueModel, type QueueLimits } from './pelsQueue';

type Item = { cls: TrafficClass; bytes: number; id: number };
const BIG: QueueLimits = { green: 10_000, yellow: 10_000, red: 10_000, internet: 10_000 };
const model = (internetShare = 0.5, limits = BIG) => new PelsQueueModel<Item>({ limits, internetShare, maxPacketBytes: 1500 });

function drain(q: PelsQueueModel<Item>, n = Number.POSITIVE_INFINITY): Item[] {
  const out: Item[] = [];
  for (let p = q.dequeue(); p && out.length < n; p = out.length < n ? q.dequeue() : undefined) out.push(p);
  return out;
}

test('inside the PELS queue, green goes before yellow before red, FIFO within a color', () => {
  const q = model();
  const arrivals: TrafficClass[] = ['red', 'yellow', 'green', 'red', 'green', 'yellow'];
  arrivals.forEach((cls, id) => q.enqueue({ cls, bytes: 500, id }));
  assert.deepEqual(drain(q).map((p) => `${p.cls}${p.id}`), ['green2', 'green4', 'yellow1', 'yellow5', 'red0', 'red3']);
});

test('a more important packet that arrives later still goes first (strict priority)', () => {
  const q = model();
  q.enqueue({ cls: 'red', bytes: 500, id: 0 });
  q.enqueue({ cls: 'red', bytes: 500, id: 1 });
  assert.equal(q.dequeue()?.id, 0);
  q.enqueue({ cls: 'green', bytes: 500, id: 2 });
  assert.equal(q.dequeue()?.id, 2);
  assert.equal(q.dequeue()?.id, 1);
});

test('WRR gives each backlogged queue its share of bytes, whatever the packet sizes', () => {
  for (const share of [0.5, 0.25, 0.8]) {
    const q = model(share);
    for (let i = 0; i < 4000; i++) {
      q.enqueue({ cls: 'internet', bytes: 1500, id: i });
      q.enqueue({ cls: i % 2 ? 'yellow' : 'red', bytes: 500, id: i });
      q.enqueue({ cls: 'green', bytes: 200, id: i });
    }
    const served = drain(q, 3000);
    const bytes = (pred: (p: Item) => boolean) => served.filter(pred).reduce((a, p) => a + p.bytes, 0);
    const internet = bytes((p) => p.cls === 'internet') / bytes(() => true);
    assert.ok(Math.abs(internet - share) < 0.01, `share ${share}: Internet got ${internet}`);
  }
});

test('an idle queue leaves the whole link to the other (work conserving)', () => {
  const q = model();
  for (let i = 0; i < 10; i++) q.enqueue({ cls: 'yellow', bytes: 500, id: i });
  assert.equal(drain(q).length, 10);
  assert.equal(q.dequeue(), undefined);
});

test('drop-tail: a full class refuses arrivals, other classes still accept', () => {
  const q = model(0.5, { green: 2, yellow: 2, red: 1, internet: 1 });
  const accepted = (['red', 'red', 'yellow', 'yellow', 'yellow', 'green', 'internet', 'internet'] as const).map((cls, id) => q.enqueue({ cls, bytes: 500, id }));
  assert.deepEqual(accepted, [true, false, true, true, false, true, true, false]);
  assert.equal(q.length('yellow'), 2);
});

test('bad parameters are refused', () => {
  assert.throws(() => model(0), RangeError);
  assert.throws(() => model(1), RangeError);
  assert.throws(() => model(0.5, { ...BIG, red: 0 }), RangeError);
});
