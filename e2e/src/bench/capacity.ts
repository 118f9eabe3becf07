/**
 * Capacity benchmark: for each N, a load test (npm run loadtest) with N
 * synthetic WebRTC viewers against a fresh server, once with per-viewer flows
 * (PELS) and once with the shared fan-out baseline (FANOUT=shared: one set of
 * producers for all viewers, as a stock mediasoup deployment forwards), in
 * turn at each N. Per row: the server's CPU and memory, per viewer too, and
 * delivery; per fan-out the knee: the largest N at which 99% of the viewers got
 * 99% of their green frames and the server stayed under 90% of the machine.
 */
import type { Fanout } from '../../../server/src/config';
import { runLoadTest, type LoadTestResult } from '../loadtest/loadTest';
import { round } from '../testbed/metrics';

export const FANOUTS: readonly Fanout[] = ['per-viewer', 'shared'];

export interface CapacityRow {
  fanout: Fanout;
  viewers: number;
  joined: number;
  failedJoins: number;
  /** The server's processes, % of one core, and per viewer. */
  cpuPercentOfOneCore: number;
  cpuPercentOfMachine: number;
  cpuPerViewer: number;
  rssMb: number;
  rssMbPerViewer: number;
  /** CPU of the node process alone and of the mediasoup worker(s), % of one core. */
  nodeCpu: number;
  workerCpu: number;
  /** The receivers' process (it shares the machine). */
  receiversCpu: number;
  greenMin: number | null;
  greenP5: number | null;
  viewersWithGreen99: number | null;
  allP5: number | null;
  /** Base frames sent a second per viewer (7.5 at the source's full 30 fps). */
  greenFps: number | null;
  joinMsP50: number | null;
  joinMsP95: number | null;
  lossGreen: number | null;
  /** Meets the knee's conditions. */
  ok: boolean;
}

/** 99% of the viewers got 99% of their green frames, and the server stayed under 90% of the machine. */
export function meetsKnee(r: Pick<LoadTestResult, 'delivery' | 'cpuPercentOfMachine'>): boolean {
  return (r.delivery.viewersWithGreen99 ?? 0) >= 0.99 && r.cpuPercentOfMachine !== null && r.cpuPercentOfMachine < 90;
}

/** The largest N of a fan-out whose row meets the conditions, with every smaller N meeting them too; null if the first does not. */
export function kneeOf(rows: readonly Pick<CapacityRow, 'viewers' | 'ok'>[]): number | null {
  let knee: number | null = null;
  for (const r of [...rows].sort((a, b) => a.viewers - b.viewers)) {
    if (!r.ok) break;
    knee = r.viewers;
  }
  return knee;
}

export function capacityRow(fanout: Fanout, r: LoadTestResult): CapacityRow {
  const cpu = r.cpuPercentOfOneCore ?? 0;
  const rss = r.rssMb ?? 0;
  const of = (name: string) => round(r.server.filter((p) => p.name === name).reduce((n, p) => n + p.cpuPercentOfOneCore, 0), 1)!;
  return {
    fanout,
    viewers: r.viewers,
    joined: r.joined,
    failedJoins: r.failedJoins,
    cpuPercentOfOneCore: cpu,
    cpuPercentOfMachine: r.cpuPercentOfMachine ?? 0,
    cpuPerViewer: round(cpu / r.viewers, 3)!,
    rssMb: rss,
    rssMbPerViewer: round(rss / r.viewers, 3)!,
    nodeCpu: of('node'),
    workerCpu: of('mediasoup-worker'),
    receiversCpu: r.receivers.cpuPercentOfOneCore,
    greenMin: r.delivery.greenMin,
    greenP5: r.delivery.greenP5,
    viewersWithGreen99: r.delivery.viewersWithGreen99,
    allP5: r.delivery.allP5,
    greenFps: r.delivery.greenFramesPerSecond,
    joinMsP50: r.joinMs.p50,
    joinMsP95: r.joinMs.p95,
    lossGreen: r.lossPerColor.green,
    ok: meetsKnee(r),
  };
}

export interface CapacityOptions {
  viewers: number[];
  fanouts: readonly Fanout[];
  rampPerSecond: number;
  seconds: number;
}

/**
 * Steps N up for each fan-out, in turn at each N; a fan-out stops stepping after
 * its first N that misses the knee (larger N only cost more time).
 */
export async function capacity(o: CapacityOptions, log: (m: string) => void): Promise<CapacityRow[]> {
  const rows: CapacityRow[] = [];
  const stopped = new Set<Fanout>();
  for (const n of [...o.viewers].sort((a, b) => a - b)) {
    for (const fanout of o.fanouts) {
      if (stopped.has(fanout)) continue;
      log(`${fanout}: ${n} viewers`);
      const result = await runLoadTest({
        viewers: n,
        rampPerSecond: o.rampPerSecond,
        seconds: o.seconds,
        serverEnv: { FANOUT: fanout },
        log: (m) => {
          if (!m.startsWith('joined')) log(`  ${m}`);
        },
      });
      const row = capacityRow(fanout, result);
      log(`  ${row.joined}/${n} joined, server ${row.cpuPercentOfOneCore}% of a core, green p5 ${row.greenP5}, ${row.ok ? 'ok' : 'past the knee'}`);
      rows.push(row);
      if (!row.ok) stopped.add(fanout);
    }
  }
  return rows;
}

export function formatCapacityTable(rows: readonly CapacityRow[]): string[] {
  const pct = (x: number | null) => (x === null ? '-' : (100 * x).toFixed(1));
  const header = ['fan-out', 'N', 'joined', 'CPU %core', '%machine', 'CPU/viewer', 'node', 'worker', 'RSS MB', 'MB/viewer', 'green min %', 'green p5 %', 'viewers 99% %', 'all p5 %', 'green fps', 'join p50/p95 ms', 'receivers CPU'];
  const lines = [header.join(' | ')];
  for (const r of rows) {
    lines.push(
      [
        r.fanout,
        r.viewers,
        r.joined,
        r.cpuPercentOfOneCore,
        r.cpuPercentOfMachine,
        r.cpuPerViewer,
        r.nodeCpu,
        r.workerCpu,
        r.rssMb,
        r.rssMbPerViewer,
        pct(r.greenMin),
        pct(r.greenP5),
        pct(r.viewersWithGreen99),
        pct(r.allP5),
        r.greenFps ?? '-',
        `${r.joinMsP50 ?? '-'}/${r.joinMsP95 ?? '-'}`,
        r.receiversCpu,
      ].join(' | '),
    );
  }
  for (const f of new Set(rows.map((r) => r.fanout))) {
    lines.push(`knee (${f}): ${kneeOf(rows.filter((r) => r.fanout === f)) ?? 'below the smallest N'} viewers`);
  }
  // The per-viewer flow's cost: CPU and memory of PELS over the baseline at each N both ran.
  for (const p of rows.filter((r) => r.fanout === 'per-viewer')) {
    const s = rows.find((r) => r.fanout === 'shared' && r.viewers === p.viewers);
    if (s && s.cpuPercentOfOneCore > 0 && s.rssMb > 0) {
      lines.push(`N=${p.viewers}: per-viewer / shared CPU ${round(p.cpuPercentOfOneCore / s.cpuPercentOfOneCore, 2)}, RSS ${round(p.rssMb / s.rssMb, 2)}`);
    }
  }
  return lines;
}
