import { expect, test } from '@playwright/test';
import { namespaceSupport } from '../src/net/topology';
import { FAULT_KINDS } from '../src/soak/faultSchedule';
import { formatSoakReport, runSoak, SOAK_DEFAULTS } from '../src/soak/soak';

/**
 * The soak's short form (the full one is `npm run bench -- soak`): two minutes
 * of churning synthetic viewers and two Chromium viewers on the PELS
 * bottleneck, its capacity and loss changing each minute, every kind of fault
 * once but the lost edge (its origin-edge pair and the edge's restart cost
 * about a minute more on a busy machine; the benchmark runs it). What must
 * hold on any machine: the server does not exit, every fault is followed by
 * both Chromium viewers decoding again, and once every viewer has left the
 * server holds what it held before the first came. Recovery times,
 * heap growth and green delivery are printed: figures for the benchmark.
 */
test('two minutes of churn and every kind of fault: no crash, every fault recovered, nothing left behind', async () => {
  const unsupported = await namespaceSupport();
  test.skip(unsupported !== null, `needs network namespaces: ${unsupported}`);
  test.setTimeout(10 * 60_000);
  const kinds = FAULT_KINDS.filter((k) => k !== 'edge-loss');
  const r = await runSoak({ ...SOAK_DEFAULTS, minutes: 2, viewers: 8, seed: 11, kinds }, () => {});
  console.log(formatSoakReport(r).join('\n'));
  test.info().annotations.push({ type: 'soak', description: JSON.stringify({ faults: r.faults, recovery: r.recovery, leaks: r.leaks, liveHeapGrowthPct: r.liveHeapGrowthPct, greenDelivery: r.greenDelivery, minutes: r.minutes }) });
  expect(r.crashes, 'server exits').toBe(0);
  expect(r.faults.map((f) => f.error ?? 'injected'), 'each fault injected').toEqual(r.faults.map(() => 'injected'));
  expect(new Set(r.faults.map((f) => f.kind)), 'every kind of fault').toEqual(new Set(kinds));
  expect(r.faults.filter((f) => f.recoveryMs === null).map((f) => f.kind), 'faults after which a Chromium viewer did not decode again within 60 s').toEqual([]);
  // Open descriptors are printed, not checked here: the soak's start count is taken cold (no viewer yet) and moved by
  // a few either way from run to run (78 -> 75, 76 -> 72, 75 -> 77); robustness.spec checks them against a warm baseline.
  expect(r.leaks.grew.filter((k) => k !== 'fds'), `counts above their start value once every viewer left: ${JSON.stringify(r.leaks)}`).toEqual([]);
  expect(r.lives.ended, 'synthetic viewers came and went').toBeGreaterThan(8);
});
