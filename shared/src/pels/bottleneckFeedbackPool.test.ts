import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MKC_PAPER_GAINS, mkcStationaryKbps, mkcStep } from './mkc';
import { BottleneckFeedbackPool, ROUTER_FEEDBACK_WINDOW_MS } from './bottleneckFeedbackPool';

const sample = (epoch: number, offeredKbps: number, capacityKbps = 1000, intervalMs = 100) => ({
  epoch,
  p: offeredKbps > 0 ? Math.max(-1, (offeredKbps - capacityKbps) / offeredKbps) : -1,
  intervalMs,
  offeredKbps,
  capacityKbps,
});

test('samples are pooled until they span the window: p of the summed bytes, over the pooled interval', () => {
  const pool = new BottleneckFeedbackPool(500);
  const out = [400, 2000, 400, 2000, 1200].map((kbps, i) => pool.add(sample(i + 1, kbps)));
  assert.deepEqual(out.slice(0, 4), [null, null, null, null]);
  // 6000 offered against 5000: p = 1/6, where the mean of the samples' own p is about -0.37.
  assert.equal(out[4]!.epoch, 5);
  assert.equal(out[4]!.intervalMs, 500);
  assert.ok(Math.abs(out[4]!.p - 1 / 6) < 1e-12);
  // The next window starts empty.
  assert.equal(pool.add(sample(6, 1000, 1000, 500))!.p, 0);
});

test('a sample as long as the window passes at once; nothing offered is -1', () => {
  const pool = new BottleneckFeedbackPool(500);
  assert.deepEqual(pool.add(sample(1, 0, 1000, 600)), { epoch: 1, p: -1, intervalMs: 600 });
});

test('repeated and reordered samples are not counted twice', () => {
  const pool = new BottleneckFeedbackPool(300);
  assert.equal(pool.add(sample(5, 2000)), null);
  assert.equal(pool.add(sample(5, 2000)), null);
  assert.equal(pool.add(sample(4, 2000)), null);
  assert.equal(pool.add(sample(6, 2000)), null);
  assert.equal(pool.add(sample(7, 2000))!.p, 0.5);
});

test('a router that does not say what was offered has its own p passed through', () => {
  const pool = new BottleneckFeedbackPool(500);
  assert.deepEqual(pool.add({ epoch: 1, p: 0.3, intervalMs: 100 }), { epoch: 1, p: 0.3, intervalMs: 100 });
});

test('bad windows are refused', () => {
  assert.throws(() => new BottleneckFeedbackPool(-1), RangeError);
  assert.throws(() => new BottleneckFeedbackPool(Number.NaN), RangeError);
});

/**
 * N flows share C; each 100 ms the offered rate is the flows' rate times a
 * burst factor (frames arrive in bursts: 3 frames of sizes 4:1:2 per 100 ms in
 * turn). MKC stepped on every sample's own p settles far above the stationary
 * point; stepped on the pooled p, near it.
 */
test('MKC on pooled samples settles near C/N + alpha/beta despite bursty arrivals; on raw 100 ms samples far above it', () => {
  const n = 5;
  const capacityKbps = 2500;
  const bursts = [0.4, 1.9, 0.7, 1.5, 0.5]; // mean 1
  const run = (pool: BottleneckFeedbackPool | null): number => {
    let rate = 300;
    let sum = 0;
    let count = 0;
    for (let k = 1; k <= 4000; k++) {
      const s = sample(k, n * rate * bursts[k % bursts.length]!, capacityKbps);
      const fb = pool ? pool.add(s) : s;
      if (fb) rate = Math.max(50, mkcStep(rate, fb.p, MKC_PAPER_GAINS));
      if (k > 2000) {
        sum += rate;
        count++;
      }
    }
    return sum / count;
  };
  const stationary = mkcStationaryKbps(capacityKbps, n, MKC_PAPER_GAINS);
  const raw = run(null);
  const pooled = run(new BottleneckFeedbackPool(ROUTER_FEEDBACK_WINDOW_MS));
  assert.ok(raw > 1.2 * stationary, `raw samples: ${raw.toFixed(0)} kb/s against ${stationary}`);
  assert.ok(Math.abs(pooled - stationary) < 0.1 * stationary, `pooled samples: ${pooled.toFixed(0)} kb/s against ${stationary}`);
});
