import { expect, test } from '@playwright/test';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS } from '../src/testbed/testbed';

/**
 * Real TCP beside the video: a bulk transfer from the server's namespace to
 * the viewers' crosses the same bottleneck, and the testbed reports it.
 */
test('a testbed run with one TCP flow reports the bytes it moved, its completion, the congestion control and Jain over all flows', async () => {
  const why = await namespaceSupport();
  test.skip(why !== null, `needs network namespaces: ${why}`);
  test.setTimeout(120_000);
  const { result } = await runTestbed(
    {
      ...TESTBED_DEFAULTS,
      seconds: 14,
      capacityKbps: 1500,
      tcp: { flows: 1, bytes: 300_000, seconds: undefined, startS: 0, queue: 'internet', congestionControl: undefined },
    },
    () => {},
  );
  test.info().annotations.push({ type: 'tcp', description: JSON.stringify({ tcp: result.tcp, cc: result.tcpCongestionControl, jainAllFlows: result.jainAllFlows }) });
  expect(result.viewers[0]!.errors).toEqual([]);
  expect(result.tcp).toHaveLength(1);
  const flow = result.tcp![0]!;
  expect(flow.bytes).toBe(300_000);
  expect(flow.completionS).not.toBeNull();
  // No flow beats its link: 300 kB at 1500 kb/s take at least 1.6 s (the flow shares it with the video too).
  expect(flow.completionS!).toBeGreaterThanOrEqual((flow.bytes * 8) / (1500 * 1000));
  expect(flow.kbpsPerSecond.some((k) => k > 0)).toBe(true);
  expect(result.tcpCongestionControl).toMatch(/^[a-z0-9_]+$/);
  // Jain's index of n flows lies in [1/n, 1] (1/n: one flow takes all): here the viewer and the TCP flow.
  const flows = result.viewers.length + result.tcp!.length;
  expect(result.jainAllFlows!).toBeGreaterThanOrEqual(1 / flows - 1e-4) // rounded to 4 places;
  expect(result.jainAllFlows!).toBeLessThanOrEqual(1);
});

test('with --upta the router drops a video flow that cannot be intelligible at its fair share, and TCP gets the link', async () => {
  const why = await namespaceSupport();
  test.skip(why !== null, `needs network namespaces: ${why}`);
  test.setTimeout(150_000);
  // 600 kb/s shared by the video (about 1 Mb/s, base layer about 290 kb/s) and two TCP flows in one FIFO:
  // a fair share of 200 kb/s would leave the video over 12% loss even at its base layer.
  const { result } = await runTestbed(
    {
      ...TESTBED_DEFAULTS,
      seconds: 30,
      capacityKbps: 600,
      mode: 'best-effort',
      upta: 0.12,
      tcp: { flows: 2, bytes: undefined, seconds: undefined, startS: 0, queue: 'shared', congestionControl: 'reno' },
    },
    () => {},
  );
  test.info().annotations.push({ type: 'upta', description: JSON.stringify({ tcp: result.tcp?.map((f) => f.secondHalfKbps), upta: result.upta, router: result.router }) });
  expect(result.upta!.changes.some((c) => c.dropping)).toBe(true);
  expect(result.router!.classes.upta!.dropped).toBeGreaterThan(100);
  // With the video taken out, the two TCP flows get more than their fair share beside it (2 of 3 flows' shares):
  // 529 and 461 kb/s of 600 in two runs at load average 17.
  const tcpKbps = result.tcp!.reduce((a, f) => a + (f.secondHalfKbps ?? 0), 0);
  expect(tcpKbps).toBeGreaterThan((2 / 3) * 600);
});
