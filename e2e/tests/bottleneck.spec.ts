import { expect, test } from '@playwright/test';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS, type TestbedResult, type ViewerResult } from '../src/testbed/testbed';

/**
 * End-to-end over the emulated PELS bottleneck: the server and Chromium in
 * their own network namespaces, the kernel's HTB priority queues between.
 * Numbers vary from run to run and machine to machine: the assertions are
 * orderings and invariants; the rates, frame rates and convergence are the
 * benchmarks' (`npm run bench -- check loss|convergence`), and the measured
 * values are attached to the report.
 */
test.describe.configure({ mode: 'serial' });

let unsupported: string | null = null;
test.beforeAll(async () => {
  unsupported = await namespaceSupport();
});

async function run(title: string, o: Partial<typeof TESTBED_DEFAULTS>): Promise<TestbedResult> {
  test.skip(unsupported !== null, `needs network namespaces: ${unsupported}`);
  const { result } = await runTestbed({ ...TESTBED_DEFAULTS, ...o }, () => {});
  test.info().annotations.push({ type: title, description: JSON.stringify({ viewers: result.viewers, jain: result.jain, router: result.router, clientUdp: result.clientUdp }) });
  return result;
}

function viewer(r: TestbedResult, i = 0): Required<Pick<ViewerResult, 'loss' | 'fps' | 'rateKbps'>> & ViewerResult {
  const v = r.viewers[i]!;
  expect(v.errors).toEqual([]);
  expect(v.loss, 'server state of the viewer').toBeDefined();
  return v as Required<Pick<ViewerResult, 'loss' | 'fps' | 'rateKbps'>> & ViewerResult;
}

/** What a router's queue dropped, as a share of what was offered to it. */
const droppedShare = (c: { sent: number; dropped: number } | undefined): number => (c && c.sent + c.dropped > 0 ? c.dropped / (c.sent + c.dropped) : 0);

/** The PELS viewer's green loss on 700 kb/s, for the best-effort viewer's under the same link. */
let pelsGreenLoss: number | undefined;

test('one PELS viewer below the stream rate: red absorbs the loss ahead of yellow, green is kept, enhancement frames decode', async () => {
  test.setTimeout(180_000);
  // 60 s: the measured second half must be past start-up, whose landing at half the overshoot can leave
  // the rate below the link for the first ~30 s (then nothing is lost and nothing is shown).
  // The default configuration, renditions on: a viewer alone on 700 kb/s may move between the renditions, and each
  // move's keyframe and rate step fall on yellow (one CI run before the congestion estimate read yellow 7.3%, red 5.0%).
  const r = await run('pels 700 kb/s', { viewers: 1, seconds: 60, capacityKbps: 700 });
  const v = viewer(r);
  // The link is below the stream rate, so the router drops, red ahead of yellow, and green not (its queue is served
  // first). A machine too busy to ingest at the full rate may never congest the link (one at load average 25 sent
  // 364 kb/s): that is said first. Each color's loss is the viewer's own, from its receiver reports, which count each
  // color's stream exactly (captures: decision 015); the router's red class also carries the held-back retransmissions
  // (AF43). With gamma's floor at the paper's 0.05 red was too small to take MKC's climbs past the link, and runs read
  // yellow above red (a CI run: red 4.3%, yellow 11.6%; one here: red 15.1%, yellow 20.5%); the server's floor is 0.2.
  // The router's counters and the datagrams the viewer's host dropped for a full socket buffer are attached.
  const why = JSON.stringify({ viewer: v.loss, gamma: v.gamma, router: r.router?.classes, clientUdp: r.clientUdp, sentKbps: v.sentKbps });
  expect(v.loss.red!, `the link congested: the viewer lost red (${why})`).toBeGreaterThan(0);
  expect(v.loss.red!, `red lost more than yellow (${why})`).toBeGreaterThan(v.loss.yellow!);
  expect(v.loss.green!, why).toBeLessThan(0.01);
  pelsGreenLoss = v.loss.green!;
  // Enhancement frames decode, not the base layer alone; nothing fails to decode or decodes wrong.
  expect(v.framesDecoded!.tid1).toBeGreaterThan(0);
  expect(v.framesDecoded!.tid2).toBeGreaterThan(0);
  expect(v.decodeErrors).toBe(0);
  expect(v.checksumMismatches).toBe(0);
});

test('two PELS viewers sharing the bottleneck with router feedback: both play, green kept, red never loses less than yellow', async () => {
  test.setTimeout(180_000);
  // How close their rates come is the convergence benchmark's figure (annotated here).
  const r = await run('pels 2 viewers 1400 kb/s router feedback', { viewers: 2, seconds: 50, capacityKbps: 1400, feedback: 'router' });
  // Whether the router or the path beyond it lost a viewer's green: one CI run read 4.59% for one viewer, with no
  // record of the router's counters.
  const atRouter = JSON.stringify({ router: r.router?.classes, clientUdp: r.clientUdp });
  for (const i of [0, 1]) {
    const v = viewer(r, i);
    expect(v.rateKbps!, v.id).toBeGreaterThan(0);
    // Both viewers' keyframes reach green's queue at once, beside the sound's small packets: the router's green
    // queue is counted in bytes so that it holds them (docs/deployment.md, "Sizing a PELS router's green queue").
    expect(v.loss.green!, `${v.id}: green lost over the run; at the router ${atRouter}`).toBeLessThan(0.01);
    expect(v.decodeErrors, v.id).toBe(0);
    expect(v.checksumMismatches, v.id).toBe(0);
  }
  // The order PELS promises is the router's: it drops red ahead of yellow. Read at the router, not from each
  // viewer's receiver reports, which also count loss the router did not make (one CI run read a viewer's red
  // 15.4% and yellow 15.6%, both far above the router's usual yellow drops of 1-4%: docs/testing.md).
  const { red, yellow } = r.router!.classes;
  expect(red!.dropped, 'the link congested: the router dropped red').toBeGreaterThan(0);
  expect(droppedShare(red), 'red dropped at the router, share of red offered').toBeGreaterThanOrEqual(droppedShare(yellow));
});

test('best effort under the same conditions loses base-layer packets', async () => {
  test.setTimeout(180_000);
  // Renditions off as in the PELS test: with them on a best-effort viewer too can move to the lower rendition, whose
  // stream fits the link, and a CI run read 0.99% green loss over the run; off, two local runs read 7.5% and 5.9%.
  const v = viewer(
    await run('best-effort 700 kb/s', { viewers: 1, seconds: 40, capacityKbps: 700, mode: 'best-effort', serverEnv: { RENDITIONS: 'none' } }),
  );
  expect(v.mode).toBe('best-effort');
  // One queue for every layer: green loses with the rest, more than PELS's green on the same link.
  expect(v.loss.green!).toBeGreaterThan(0);
  if (pelsGreenLoss !== undefined) expect(v.loss.green!).toBeGreaterThan(pelsGreenLoss);
  expect(v.decodeErrors).toBe(0);
});
