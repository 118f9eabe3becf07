import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestbedResult } from '../testbed/testbed';
import { formatLiveLatencyTable, liveLatencyRow } from './liveLatency';

test("a latency row: the viewer's latency, stages, sound held, fps and mismatches; a run without a viewer says so", () => {
  const result = {
    config: {},
    jain: null,
    viewers: [{ id: 'v1', latencyMs: { p50: 420, p95: 610, from: 'publish' }, latencyStagesMs: { publisher: 30, ingest: 90, network: 40, buffer: 10, display: 200 }, fps: 29.9, checksumMismatches: 0, audio: { soundHeldMs: 120 }, errors: [] }],
    cpuPercentOfOneCore: {},
  } as unknown as TestbedResult;
  const row = liveLatencyRow('whip', 2, result, [3.1, 3.4]);
  assert.deepEqual(row.latencyMs, { p50: 420, p95: 610, from: 'publish' });
  assert.equal(row.stagesMs?.display, 200);
  assert.equal(formatLiveLatencyTable([row])[2], '| whip | 2 | 420 | 610 | publish | 30 | 90 | 40 | 10 | 200 | 120 | 29.9 | 0 | 3.1, 3.4 |');
  const empty = liveLatencyRow('rtmp', 1, { ...result, viewers: [] }, [1, 1]);
  assert.deepEqual(empty.errors, ['no viewer']);
  assert.equal(empty.latencyMs, null);
});
