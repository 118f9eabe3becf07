import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import type { ReceiversReport, ReceiverResult } from '../loadtest/receiverReport';
import { nodeResults, rejoinResult } from './clusterSummary';

const record = (id: string, viewers: number): NodeRecord => ({ id, role: 'edge', url: `http://${id}:8080/`, viewers, viewersMax: 100, cpuPercentOfOneCore: 9, streams: ['default'], draining: false });

test("nodes: the registry's last word on viewers and places, the process tree's CPU without tsx's compiler, a killed edge's time", () => {
  const t0 = 1_000_000;
  const rows = nodeResults(
    [
      { id: 'origin', role: 'origin', address: '10.0.0.10:8080' },
      { id: 'edge-1', role: 'edge', address: '10.0.0.11:8080', killedAtMs: t0 + 20_400 },
      { id: 'edge-2', role: 'edge', address: '10.0.0.12:8080' },
    ],
    new Map([
      ['edge-1', record('edge-1', 12)],
      ['edge-2', record('edge-2', 30)],
    ]),
    { origin: { node: 40.5, 'mediasoup-worker': 3.2, esbuild: 1 }, 'edge-2': { node: 20, 'mediasoup-worker': 5.05 } },
    t0,
  );
  assert.deepEqual(rows, [
    { id: 'origin', role: 'origin', address: '10.0.0.10:8080', viewers: null, viewersMax: null, cpuPercentOfOneCore: 43.7 },
    { id: 'edge-1', role: 'edge', address: '10.0.0.11:8080', viewers: 12, viewersMax: 100, cpuPercentOfOneCore: null, killedAtS: 20.4 },
    { id: 'edge-2', role: 'edge', address: '10.0.0.12:8080', viewers: 30, viewersMax: 100, cpuPercentOfOneCore: 25.1 },
  ]);
});

const receiver = (rejoins: ReceiverResult['rejoins']): ReceiverResult => ({
  index: 0,
  joined: true,
  joinMs: 500,
  colors: {},
  layers: [0, 1, 2].map(() => ({ complete: 0, incomplete: 0, keyframes: 0 })) as ReceiverResult['layers'],
  green: { received: 0, sent: 0 },
  all: { received: 0, sent: 0 },
  nacksSent: {},
  server: null,
  ...(rejoins ? { rejoins } : {}),
});

test("rejoin: each viewer's first loss of the killed edge; those not back by the end failed", () => {
  const lost = (ms: number | null, from = 'edge-1') => ({ lostAtMs: 1, ms, from, ...(ms === null ? {} : { to: 'edge-2' }), attempts: 2 });
  const report: ReceiversReport = {
    viewers: 6,
    rampPerSecond: 10,
    holdSeconds: 30,
    cpuSeconds: 1,
    maxRssMb: 10,
    receivers: [receiver([lost(2000)]), receiver([lost(3000), lost(9000, 'edge-2')]), receiver([lost(8000)]), receiver([lost(null)]), receiver(undefined), receiver([lost(700, 'edge-2')])],
  };
  assert.deepEqual(rejoinResult(report, 'edge-1'), { viewers: 4, p50Ms: 3000, p95Ms: 3000, maxMs: 8000, failed: 1 });
  assert.deepEqual(rejoinResult(report), { viewers: 5, p50Ms: 2000, p95Ms: 3000, maxMs: 8000, failed: 1 });
  assert.deepEqual(rejoinResult({ ...report, receivers: [receiver(undefined)] }, 'edge-1'), { viewers: 0, p50Ms: null, p95Ms: null, maxMs: null, failed: 0 });
});
