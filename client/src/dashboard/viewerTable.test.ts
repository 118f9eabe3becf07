import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OperatorViewer } from '@pels/shared/protocol/operator';
import { filterRows, nextSort, NO_FILTER, sortRows, toRow, type ViewerRow } from './viewerTable';

/** 100 viewers over 3 streams, half best effort, with a spread of values and some unknowns. */
function syntheticViewers(n = 100): OperatorViewer[] {
  return Array.from({ length: n }, (_, i) => {
    const color = (recentLoss: number | null) => ({ packetsSent: 1000, packetsLost: 0, lossFraction: 0, recentLoss });
    return {
      id: `v${String(i).padStart(3, '0')}`,
      streamId: ['default', 'city', 'lab'][i % 3]!,
      mode: i % 2 ? 'best-effort' : 'pels',
      controller: 'mkc',
      transport: i % 7 === 0 ? 'tcp' : 'udp',
      connectedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, (i * 7) % 60, i)).toISOString(),
      colors: ['green', 'yellow', 'red'],
      rateKbps: 128 + ((i * 37) % 900),
      gamma: ((i * 13) % 100) / 100,
      lossP: null,
      congestion: { diagnosis: (['clear', 'wire-loss', 'congestion'] as const)[i % 3]!, measuredLoss: null, congestion: null, wireLoss: null, queueDelayMs: null, baseCongestion: 0 },
      feedbackSteps: i,
      rttMs: i % 10 === 0 ? null : (i * 3) % 80,
      ssrcs: { green: 1, yellow: 2, red: 3 },
      perColor: { green: color(0), yellow: color(i % 5 === 0 ? null : ((i * 11) % 50) / 100), red: color(((i * 17) % 100) / 100) },
      framesSent: { tid0: 0, tid1: 0, tid2: 0 },
      framesSkipped: 0,
      sentKbps: 100 + ((i * 53) % 800),
      dscp: { enabled: true },
      psnrDb: i % 4 === 0 ? 20 + (i % 13) : null,
      display: null,
      rtx: { ssrcs: {}, repaired: i % 4 === 0 ? ['green', 'yellow'] : ['green'], repairUnavailable: null, nacksReceived: 0, packetsSent: 0, bytesSent: 0 },
      keyframeRequests: { green: 0, yellow: 0, red: 0 },
      pacing: { kbps: 0, backlogBytes: 0, delay: { frames: 0, totalMs: 0, maxMs: 0 } },
      rendition: { current: i % 2, pending: null, pinned: null, switches: i % 3, timeMs: [1000, 0], baseKbps: [240, 50] },
      upta: i % 9 === 0 ? { state: 'paused', since: '2026-01-01T00:00:00.000Z', reason: 'loss', probing: false, expectedDb: 17 } : null,
      audio: null,
    };
  });
}

const rows: ViewerRow[] = syntheticViewers().map(toRow);

test('toRow flattens a viewer; a missing PSNR is null', () => {
  const [a, b] = [rows[0]!, rows[1]!];
  assert.equal(a.psnrDb, 20);
  assert.equal(b.psnrDb, null);
  assert.equal(a.lossYellow, null);
  assert.equal(b.lossRed, 0.17);
  assert.equal(a.connectedAt, Date.UTC(2026, 0, 1, 0, 0, 0, 0));
  assert.equal(a.upta, 'paused');
  assert.equal(b.upta, null);
  assert.deepEqual([a.diagnosis, a.repaired], ['clear', 'GY']);
  assert.deepEqual([b.diagnosis, b.repaired], ['wire-loss', 'G']);
});

test('filters by text (viewer or stream id, any case), stream and mode, combined', () => {
  assert.equal(filterRows(rows, NO_FILTER).length, 100);
  assert.deepEqual(filterRows(rows, { ...NO_FILTER, text: 'V04' }).map((r) => r.id), Array.from({ length: 10 }, (_, k) => `v04${k}`));
  assert.equal(filterRows(rows, { ...NO_FILTER, text: ' CITY ' }).length, 33);
  assert.equal(filterRows(rows, { ...NO_FILTER, streamId: 'lab' }).length, 33);
  assert.equal(filterRows(rows, { ...NO_FILTER, mode: 'best-effort' }).length, 50);
  const both = filterRows(rows, { text: '', streamId: 'default', mode: 'pels' });
  assert.ok(both.length === 17 && both.every((r) => r.streamId === 'default' && r.mode === 'pels'));
  assert.equal(filterRows(rows, { ...NO_FILTER, text: 'nobody' }).length, 0);
});

test('sorts numbers both ways with unknowns last, text alphabetically, ties by id', () => {
  const byRate = sortRows(rows, { key: 'rateKbps', dir: 'desc' });
  for (let i = 1; i < byRate.length; i++) {
    const [p, c] = [byRate[i - 1]!, byRate[i]!];
    assert.ok(p.rateKbps > c.rateKbps || (p.rateKbps === c.rateKbps && p.id < c.id));
  }
  for (const dir of ['asc', 'desc'] as const) {
    const byRtt = sortRows(rows, { key: 'rttMs', dir });
    assert.equal(byRtt.filter((r) => r.rttMs === null).length, 10);
    assert.ok(byRtt.slice(-10).every((r) => r.rttMs === null), `nulls last (${dir})`);
    const known = byRtt.slice(0, 90).map((r) => r.rttMs!);
    assert.deepEqual(known, [...known].sort((a, b) => (dir === 'asc' ? a - b : b - a)));
  }
  const byStream = sortRows(rows, { key: 'streamId', dir: 'asc' });
  assert.deepEqual([...new Set(byStream.map((r) => r.streamId))], ['city', 'default', 'lab']);
  assert.ok(byStream.slice(0, 33).every((r, i, a) => i === 0 || a[i - 1]!.id < r.id));
  assert.equal(rows[0]!.id, 'v000', 'the input is not reordered');
});

test('nextSort: a new numeric column starts largest first, text A-Z; the same column flips', () => {
  const s = nextSort({ key: 'id', dir: 'asc' }, 'rateKbps', rows[0]);
  assert.deepEqual(s, { key: 'rateKbps', dir: 'desc' });
  assert.deepEqual(nextSort(s, 'rateKbps', rows[0]), { key: 'rateKbps', dir: 'asc' });
  assert.deepEqual(nextSort(s, 'streamId', rows[0]), { key: 'streamId', dir: 'asc' });
  assert.deepEqual(nextSort(s, 'psnrDb', rows[1]), { key: 'psnrDb', dir: 'desc' });
});
