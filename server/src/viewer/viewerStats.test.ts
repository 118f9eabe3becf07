/**
 * When a viewer's stats polls read its consumers. The consumers and transport
 * here are stand-ins counting mediasoup requests: what is tested is which
 * poll asks for what, which the real worker cannot show without a WebRTC peer
 * that sends RTCP on cue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { types as ms } from 'mediasoup';
import type { ReceiverReportsInput } from '@pels/shared/control/input';
import { STATS_POLL_MS } from '@pels/shared/control/receiverReports';
import { COLORS, type Color } from '@pels/shared/pels/color';
import { ViewerStats } from './viewerStats';

function viewer() {
  const counts = { transport: 0, consumers: 0, reports: [] as ReceiverReportsInput[], ticks: 0 };
  let bytesReceived = 1000;
  let awaiting = false;
  /** While set, the transport's stats are not answered (a worker that fell behind). */
  let stalled: Promise<void> | null = null;
  const consumer = (packetCount: number) =>
    ({
      getStats: async () => {
        counts.consumers++;
        return [{ type: 'outbound-rtp', packetCount, packetsLost: 0, fractionLost: 0, jitter: 0, nackCount: 0, packetsRetransmitted: 0, pliCount: 0, firCount: 0 }];
      },
    }) as unknown as ms.Consumer;
  const transport = {
    getStats: async () => {
      counts.transport++;
      await stalled;
      return [{ bytesReceived, rtxBytesSent: 0 }];
    },
  } as unknown as ms.WebRtcTransport;
  const stats = new ViewerStats({
    consumers: new Map<Color, ms.Consumer>(COLORS.map((k, i) => [k, consumer(100 * (i + 1))])),
    transport: () => transport,
    sentBytes: () => ({ green: 0, yellow: 0, red: 0 }),
    onReports: (input) => counts.reports.push(input),
    awaitingReports: () => awaiting,
    onTick: () => counts.ticks++,
    requests: { timed: (_what, request) => request() },
  });
  return {
    stats,
    counts,
    /** RTCP (or an ICE check) from the viewer reached the transport. */
    hear: () => (bytesReceived += 80),
    setAwaiting: (a: boolean) => (awaiting = a),
    /** Holds the transport's answers until the returned function is called. */
    stall: () => {
      let release = () => {};
      stalled = new Promise<void>((r) => (release = r));
      return () => {
        stalled = null;
        release();
      };
    },
  };
}

/** Resolves once `n` more polls have run (each reads the transport once). */
async function polls(v: ReturnType<typeof viewer>, n: number): Promise<void> {
  const target = v.counts.transport + n;
  while (v.counts.transport < target) await new Promise((r) => setTimeout(r, 20));
  // The poll's consumer reads, if any, finish after its transport read.
  await new Promise((r) => setTimeout(r, 20));
}

test('the consumers are read when the viewer sent something, or while the control core waits for reports; otherwise only time passes', async (t) => {
  const v = viewer();
  t.after(() => v.stats.stop());
  v.stats.start();
  await polls(v, 1);
  // The first poll reads everything: nothing was heard before.
  assert.equal(v.counts.consumers, 3);
  assert.deepEqual(Object.keys(v.counts.reports[0]!.streams), ['green', 'yellow', 'red']);

  // Nothing from the viewer: polls read the transport alone, and tick the control core.
  await polls(v, 2);
  assert.equal(v.counts.consumers, 3);
  assert.equal(v.counts.reports.length, 1);
  assert.ok(v.counts.ticks >= 2);

  // A report came: the next poll reads the three consumers.
  v.hear();
  await polls(v, 1);
  assert.equal(v.counts.consumers, 6);
  assert.equal(v.counts.reports.length, 2);

  // The control core waits for the other streams' reports: every poll reads them.
  v.setAwaiting(true);
  await polls(v, 2);
  assert.ok(v.counts.consumers >= 12, `${v.counts.consumers} consumer reads`);
  v.setAwaiting(false);
});

test('a poll is not sent while the last one waits for the worker: the polls never pile up, and time still passes for the control core', async (t) => {
  const v = viewer();
  t.after(() => v.stats.stop());
  v.stats.start();
  await polls(v, 1);
  const release = v.stall();
  await polls(v, 1);
  const [requests, ticks] = [v.counts.transport, v.counts.ticks];
  // Four poll intervals with the answer outstanding.
  await new Promise((r) => setTimeout(r, 4 * STATS_POLL_MS + 50));
  assert.equal(v.counts.transport, requests, 'no request sent while one waits');
  assert.ok(v.counts.ticks > ticks, 'the control core ticks while the poll waits');
  release();
  await polls(v, 2);
});
