import { expect, test } from '@playwright/test';
import { MKC_PAPER_GAINS, mkcStationaryKbps } from '@pels/shared/pels/mkc';
import { pelsScaleRow, PELS_SCALE_PER_VIEWER_KBPS } from '../src/bench/pelsScale';
import { namespaceSupport } from '../src/net/topology';
import { runTestbed, TESTBED_DEFAULTS } from '../src/testbed/testbed';

/**
 * PELS at scale, short: 10 synthetic viewers (real WebRTC receivers in the
 * viewers' namespace, no browser CPU) share 10 x 600 kb/s with router
 * feedback. What PELS promises on any machine: every viewer gets every green
 * frame, the router drops red before yellow and no green. How near the rates
 * come to MKC's stationary point C/N + alpha/beta is a figure of the
 * pelsScale benchmark (`npm run bench -- check pelsScale`), annotated here.
 */
test('10 synthetic viewers on 6000 kb/s with router feedback: green whole, red drops first', async () => {
  const why = await namespaceSupport();
  test.skip(why !== null, `needs network namespaces: ${why}`);
  test.setTimeout(180_000);
  const n = 10;
  const capacityKbps = n * PELS_SCALE_PER_VIEWER_KBPS;
  const { result } = await runTestbed(
    { ...TESTBED_DEFAULTS, viewers: 0, synthetic: n, seconds: 40, capacityKbps, feedback: 'router', serverEnv: { RENDITIONS: 'none' } },
    () => {},
  );
  const row = pelsScaleRow(n, 1, result, null);
  test.info().annotations.push({ type: 'pels-scale 10', description: JSON.stringify(row) });
  expect(row.joined).toBe(n);
  for (const v of result.viewers) {
    expect(v.errors, v.id).toEqual([]);
    expect(v.rateKbps, `${v.id}: the server's view`).toEqual(expect.any(Number));
  }
  expect(row.greenMin).toBe(1);
  expect(row.routerLoss.green).toBe(0);
  expect(row.routerLoss.red!).toBeGreaterThan(row.routerLoss.yellow!);
  expect(row.stationaryKbps).toBe(mkcStationaryKbps(capacityKbps, n, MKC_PAPER_GAINS));
});
