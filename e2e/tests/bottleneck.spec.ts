import { expect, test } from '@playwright/test';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS, type TestbedResult, type ViewerResult } from '../src/testbed/testbed';

/**
 * End-to-end over the emulated PELS bottleneck: the server and Chromium in
 * their own network namespaces, the kernel's HTB priority queues between.
 * Numbers vary from run to run; the assertions are about orderings and
 * coarse bounds, the measured values are attached to the report.
 */
test.describe.configure({ mode: 'serial' });

let unsupported: string | null = null;
test.beforeAll(async () => {
  unsupported = await namespaceSupport();
});

async function run(title: string, o: Partial<typeof TESTBED_DEFAULTS>): Promise<TestbedResult> {
  test.skip(unsupported !== null, `needs network namespaces: ${unsupported}`);
  const { result } = await runTestbed({ ...TESTBED_DEFAULTS, ...o }, () => {});
  test.info().annotations.push({ type: title, description: JSON.stringify({ viewers: result.viewers, jain: result.jain, router: result.router }) });
  return result;
}

function viewer(r: TestbedResult, i = 0): Required<Pick<ViewerResult, 'loss' | 'fps' | 'rateKbps'>> & ViewerResult {
  const v = r.viewers[i]!;
  expect(v.errors).toEqual([]);
  expect(v.loss, 'server state of the viewer').toBeDefined();
  return v as Required<Pick<ViewerResult, 'loss' | 'fps' | 'rateKbps'>> & ViewerResult;
}

test('one PELS viewer below the stream rate: red absorbs the loss, green is kept, video decodes', async () => {
  test.setTimeout(180_000);
  // 60 s: the measured second half must be past start-up, whose landing at half the overshoot can leave
  // the rate below the link for the first ~30 s (then nothing is lost and nothing is shown).
  // The default configuration, renditions on: a viewer alone on 700 kb/s may move between the renditions, and each
  // move's keyframe and rate step fall on yellow (one CI run before the congestion estimate read yellow 7.3%, red 5.0%).
  const v = viewer(await run('pels 700 kb/s', { viewers: 1, seconds: 60, capacityKbps: 700 }));
  // The link is below the stream rate, so red loses. How much depends on the overshoot and the renditions: about 3% with
  // them off (2.7%, 3.1% in two runs), 32% with them on (one run; yellow 3.5%).
  expect(v.loss.red!).toBeGreaterThan(0.01);
  // Red absorbs the loss ahead of yellow. How far ahead varies: red at 2 x yellow or more in most runs, 1.8 x in one CI run.
  expect(v.loss.red!).toBeGreaterThan(v.loss.yellow!);
  expect(v.loss.green!).toBeLessThan(0.01);
  // Above the 7.5 fps the base layer alone gives: enhancement frames decode.
  expect(v.fps!).toBeGreaterThan(7.5);
  expect(v.decodeErrors).toBe(0);
  // MKC keeps the rate near the bottleneck, below the full stream.
  expect(v.rateKbps!).toBeGreaterThan(350);
  expect(v.rateKbps!).toBeLessThan(1000);
});

test('two PELS viewers sharing the bottleneck converge to rates within 15% of each other', async () => {
  test.setTimeout(180_000);
  const r = await run('pels 2 viewers 1400 kb/s router feedback', { viewers: 2, seconds: 50, capacityKbps: 1400, feedback: 'router' });
  const [a, b] = [viewer(r, 0).rateKbps!, viewer(r, 1).rateKbps!];
  expect(Math.abs(a - b) / Math.max(a, b)).toBeLessThan(0.15);
});

test('best effort under the same conditions loses base-layer packets', async () => {
  test.setTimeout(180_000);
  // Renditions off as in the PELS test: with them on a best-effort viewer too can move to the lower rendition, whose
  // stream fits the link, and a CI run read 0.99% green loss over the run; off, two local runs read 7.5% and 5.9%.
  const v = viewer(
    await run('best-effort 700 kb/s', { viewers: 1, seconds: 40, capacityKbps: 700, mode: 'best-effort', serverEnv: { RENDITIONS: 'none' } }),
  );
  expect(v.mode).toBe('best-effort');
  expect(v.loss.green!).toBeGreaterThan(0.01);
});
