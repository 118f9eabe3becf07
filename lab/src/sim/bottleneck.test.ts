import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventQueue } from './eventQueue';
import { Link } from './links';
import type { Packet, TrafficClass } from './packet';
import { Bottleneck, type BottleneckParams } from './bottleneck';

const PARAMS: BottleneckParams = {
  id: 'r1',
  capacityKbps: 4000,
  delayMs: 5,
  internetShare: 0.5,
  limits: { green: 30, yellow: 30, red: 30, internet: 100 },
  feedbackIntervalMs: 30,
  maxPacketBytes: 1500,
  binMs: 1000,
};

/** Offers packets of one class at a constant rate from 0 to untilMs. */
function offer(events: EventQueue, router: Bottleneck, cls: TrafficClass, kbps: number, untilMs: number, sent: Packet[] = []): Packet[] {
  let seq = 0;
  const next = (): void => {
    if (events.nowMs >= untilMs) return;
    const p: Packet = { flow: cls === 'internet' ? -1 : 0, cls, bytes: 500, seq: seq++, sentAtMs: events.nowMs };
    sent.push(p);
    router.receive(p);
    events.after(4000 / kbps, next);
  };
  events.at(0, next);
  return sent;
}

test('eq. 11: every T the router labels PELS packets with p = (R - C)/R of the bytes offered, C its WRR share', () => {
  const events = new EventQueue();
  const router = new Bottleneck(events, PARAMS, () => {});
  offer(events, router, 'internet', 3000, 600); // keeps the Internet queue busy
  const sent = offer(events, router, 'red', 3000, 300);
  offer(events, router, 'green', 500, 300);
  events.runUntil(600);
  const during = router.feedback.filter((f) => f.atMs <= 300);
  assert.equal(during.length, 10);
  assert.deepEqual(during.map((f) => f.epoch), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // 3500 kb/s offered into C = 2000: p = 1 - 2000/3500, up to one packet per interval of rounding.
  for (const f of during) assert.ok(Math.abs(f.p - (1 - 2000 / 3500)) < 0.03, `p ${f.p}`);
  // Labels are stamped on arrival with the last finished interval; nothing before the first one.
  for (const p of sent) assert.equal(p.label?.epoch, p.sentAtMs < 30 ? undefined : Math.floor(p.sentAtMs / 30));
  assert.equal(router.feedback.length, 10, 'intervals without traffic give no label');
});

test('below capacity p is negative: -1 at half of C', () => {
  const events = new EventQueue();
  const router = new Bottleneck(events, PARAMS, () => {});
  offer(events, router, 'yellow', 1000, 3000);
  events.runUntil(3000);
  // 7 or 8 packets per interval: p is -1.14 or -0.875, -1 on average.
  const ps = router.feedback.map((f) => f.p);
  for (const p of ps) assert.ok(Math.abs(p + 1) < 0.15, `p ${p}`);
  assert.ok(Math.abs(ps.reduce((a, b) => a + b, 0) / ps.length + 1) < 0.02);
});

test('the PELS queue is served at its share while the Internet queue is busy, red only what is left, and red overflows first', () => {
  const events = new EventQueue();
  const delivered: Record<TrafficClass, number> = { green: 0, yellow: 0, red: 0, internet: 0 };
  const router = new Bottleneck(events, PARAMS, (p) => delivered[p.cls]++);
  offer(events, router, 'internet', 3000, 10_000);
  offer(events, router, 'green', 800, 10_000);
  offer(events, router, 'yellow', 800, 10_000);
  offer(events, router, 'red', 1000, 10_000);
  events.runUntil(10_000); // rates while every queue is fed, not the drain after
  const kbps = (n: number) => (n * 500 * 8) / 10_000;
  assert.ok(Math.abs(kbps(delivered.green) - 800) < 10 && Math.abs(kbps(delivered.yellow) - 800) < 10, 'green and yellow get all they offer');
  assert.ok(Math.abs(kbps(delivered.red) - 400) < 20, `red gets the rest of 2000: ${kbps(delivered.red)}`);
  assert.ok(Math.abs(kbps(delivered.internet) - 2000) < 20, `Internet gets its half: ${kbps(delivered.internet)}`);
  assert.equal(router.stats.green.drops.total(0, 11_000).sum + router.stats.yellow.drops.total(0, 11_000).sum, 0);
});

test('a link serializes, delays and drops at its limit', () => {
  const events = new EventQueue();
  const arrivals: number[] = [];
  const link = new Link(events, { rateKbps: 4000, delayMs: 10, limitPackets: 2 }, () => arrivals.push(events.nowMs));
  events.at(0, () => {
    for (let i = 0; i < 3; i++) link.send({ flow: 0, cls: 'green', bytes: 500, seq: i, sentAtMs: 0 });
  });
  events.runUntil(100);
  assert.deepEqual(arrivals, [11, 12]); // 1 ms per 500-byte packet at 4 mb/s, then 10 ms; the third did not fit
  assert.equal(link.dropped, 1);
});
