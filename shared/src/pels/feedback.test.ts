import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FreshnessGuard, pooledLoss, routerEnhancementLoss, type FeedbackEvent, type FeedbackVerdict } from './feedback';

const rtcp = (epoch: number, lossFraction = 0.1, extra: Partial<FeedbackEvent> = {}): FeedbackEvent => ({ kind: 'rtcp', epoch, lossFraction, atMs: 1000, ...extra });
const router = (epoch: number, lossFraction = -0.5, extra: Partial<FeedbackEvent> = {}): FeedbackEvent => ({ kind: 'router', epoch, lossFraction, atMs: 1000, ...extra });

test('each epoch is used once; duplicates and reordered feedback are stale', () => {
  const cases: Array<{ name: string; events: FeedbackEvent[]; verdicts: FeedbackVerdict[] }> = [
    { name: 'increasing', events: [rtcp(10), rtcp(11), rtcp(40)], verdicts: ['fresh', 'fresh', 'fresh'] },
    { name: 'duplicate report', events: [rtcp(10), rtcp(10)], verdicts: ['fresh', 'stale'] },
    { name: 'reordered', events: [router(5), router(7), router(6), router(8)], verdicts: ['fresh', 'fresh', 'stale', 'fresh'] },
    { name: 'rtcp and router are separate', events: [rtcp(5), router(5), router(3)], verdicts: ['fresh', 'fresh', 'stale'] },
    {
      name: 'a new router origin is heard at once',
      events: [router(90, 0, { origin: 'r1' }), router(2, 0, { origin: 'r2' }), router(91, 0, { origin: 'r1' }), router(2, 0, { origin: 'r2' })],
      verdicts: ['fresh', 'fresh', 'fresh', 'stale'],
    },
    { name: 'first epoch can be 0', events: [router(0), router(0)], verdicts: ['fresh', 'stale'] },
  ];
  for (const { name, events, verdicts } of cases) {
    const guard = new FreshnessGuard();
    assert.deepEqual(events.map((e) => guard.check(e)), verdicts, name);
  }
});

test('invalid events are rejected and do not consume the epoch', () => {
  const bad: FeedbackEvent[] = [
    rtcp(1, -0.1),
    rtcp(1, 1.2),
    rtcp(1, Number.NaN),
    router(1, Number.NEGATIVE_INFINITY),
    router(1, 1.01),
    rtcp(Number.NaN),
    rtcp(1, 0.1, { atMs: Number.NaN }),
    rtcp(1, 0.1, { sentAtMs: 2000 }),
  ];
  for (const ev of bad) {
    const guard = new FreshnessGuard();
    assert.equal(guard.check(ev), 'invalid', JSON.stringify(ev));
    assert.equal(guard.check({ ...ev, epoch: 1, lossFraction: 0.1, atMs: 1000, sentAtMs: 900 }), 'fresh');
  }
  assert.equal(new FreshnessGuard().check(router(1, -20)), 'fresh');
});

test('pooledLoss weighs yellow and red by packets', () => {
  const cases = [
    { intervals: [{ expected: 100, lost: 0 }, { expected: 100, lost: 60 }], expected: 0.3 },
    { intervals: [{ expected: 300, lost: 0 }, { expected: 100, lost: 80 }], expected: 0.2 },
    { intervals: [{ expected: 50, lost: -3 }], expected: 0 },
    { intervals: [{ expected: 10, lost: 12 }], expected: 1 },
    { intervals: [{ expected: 0, lost: 0 }], expected: undefined },
    { intervals: [], expected: undefined },
  ];
  for (const { intervals, expected } of cases) assert.equal(pooledLoss(intervals), expected, JSON.stringify(intervals));
});

test('routerEnhancementLoss puts the router loss of a flow on its enhancement layer', () => {
  const cases: Array<{ p: number; rate: number; base: number; want: number }> = [
    { p: 0.1, rate: 500, base: 100, want: 0.125 }, // 50 kb/s lost of 400 kb/s of enhancement
    { p: 0.1, rate: 500, base: 0, want: 0.1 }, // no base layer: the same loss
    { p: -0.5, rate: 500, base: 100, want: -0.5 }, // spare capacity passes through
    { p: 0, rate: 500, base: 100, want: 0 },
    { p: 0.5, rate: 200, base: 150, want: 1 }, // more loss than enhancement: capped
    { p: 0.1, rate: 100, base: 100, want: 1 }, // nothing but base sent: the loss hit the base
  ];
  for (const { p, rate, base, want } of cases) assert.ok(Math.abs(routerEnhancementLoss(p, rate, base) - want) < 1e-12, `p=${p} r=${rate} b=${base}`);
});
