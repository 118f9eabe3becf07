import { expect, test } from '@playwright/test';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS, type Sample } from '../src/testbed/testbed';

/**
 * The testbed's controller competition: one rate controller per viewer
 * (`--cc`, cycled) and a bottleneck whose capacity changes mid-run
 * (`--capacity-step`), on the real path (server and Chromium in their own
 * network namespaces, the kernel's HTB queues between).
 */
let unsupported: string | null = null;
test.beforeAll(async () => {
  unsupported = await namespaceSupport();
});

/** Bytes the router's video queues sent between two samples, as kb/s. */
function videoKbps(a: Sample, b: Sample): number {
  const bytes = (s: Sample) => (['green', 'yellow', 'red'] as const).reduce((sum, q) => sum + (s.router?.[q]?.bytes ?? 0), 0);
  return ((bytes(b) - bytes(a)) * 8) / ((b.t - a.t) * 1000);
}

test('viewers under the controllers given, cycled; the bottleneck drops to the stepped capacity and the JSON says so', async () => {
  test.skip(unsupported !== null, `needs network namespaces: ${unsupported}`);
  test.setTimeout(180_000);
  const { result, samples } = await runTestbed({ ...TESTBED_DEFAULTS, viewers: 3, seconds: 24, capacityKbps: 3000, controllers: ['mkc', 'aimd'], capacitySteps: [{ atS: 12, kbps: 600 }] }, () => {});
  test.info().annotations.push({ type: 'result', description: JSON.stringify({ viewers: result.viewers, router: result.router }) });
  expect(result.viewers.map((v) => v.controller)).toEqual(['mkc', 'aimd', 'mkc']);
  expect(result.viewers.every((v) => v.errors.length === 0)).toBe(true);
  const [step] = result.router!.capacitySteps;
  expect(step).toMatchObject({ atS: 12, kbps: 600 });
  expect(step!.error).toBeUndefined();
  expect(step!.appliedAtS).toBeGreaterThanOrEqual(12);
  expect(samples.map((s) => s.capacityKbps)).toEqual(samples.map((s) => (s.t < 12 ? 3000 : 600)));
  // The kernel shapes to the new rate: the video queues (which may borrow the whole link while the Internet queue is idle) carry no more than it once the step is in
  // (10% for HTB's burst and the samples' timing), and less than before the step, measured side by side in the same run. How fast each controller
  // follows the step is a figure of `npm run bench -- convergence`.
  const at = (t: number) => samples.find((s) => s.t === t)!;
  const before = videoKbps(at(4), at(10));
  const after = videoKbps(at(16), at(24));
  test.info().annotations.push({ type: 'video through the bottleneck (kb/s)', description: JSON.stringify({ before, after }) });
  expect(after).toBeLessThan(600 * 1.1);
  expect(before).toBeGreaterThan(after);
});
