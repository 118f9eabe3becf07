/**
 * Live latency, publish to display: the testbed with --ingest (FFmpeg
 * publishing a 30 fps test picture and tone over RTMP or SRT, or Chromium a
 * moving picture and a tone over WHIP, each frame's capture time stamped) and one Chromium viewer on the open link (no
 * bottleneck), repeated. Per run: the viewer's latency p50 and p95 (second
 * half), each stage's share, its fps and checksum mismatches, and the load
 * average around it: the machine's load moves these figures, so they are
 * printed, never asserted.
 */
import { round } from '../testbed/metrics';
import { runTestbed, TESTBED_DEFAULTS, type IngestProtocol, type TestbedResult, type ViewerResult } from '../testbed/testbed';

export interface LiveLatencyRow {
  ingest: IngestProtocol;
  run: number;
  latencyMs: ViewerResult['latencyMs'];
  stagesMs: ViewerResult['latencyStagesMs'];
  fps: number | null;
  checksumMismatches: number | null;
  /** How long the player held its sound for the picture (median, ms): the display stage's floor with sound. */
  soundHeldMs: number | null;
  errors: string[];
  /** The machine's 1-minute load average before and after the run. */
  loadAverage: [number, number];
}

export function liveLatencyRow(ingest: IngestProtocol, run: number, r: TestbedResult, loadAverage: [number, number]): LiveLatencyRow {
  const v = r.viewers[0];
  return {
    ingest,
    run,
    latencyMs: v?.latencyMs ?? null,
    stagesMs: v?.latencyStagesMs ?? null,
    fps: v?.fps ?? null,
    checksumMismatches: v?.checksumMismatches ?? null,
    soundHeldMs: v?.audio?.soundHeldMs ?? null,
    errors: v?.errors ?? ['no viewer'],
    loadAverage,
  };
}

export async function liveLatency(
  o: { ingest: IngestProtocol[]; runs: number; seconds: number; loadAverage: () => number },
  progress: (m: string) => void,
): Promise<LiveLatencyRow[]> {
  const rows: LiveLatencyRow[] = [];
  for (let run = 1; run <= o.runs; run++) {
    // Protocols alternate within a round: a change of the machine's load falls on both.
    for (const ingest of o.ingest) {
      progress(`${ingest} publisher, 1 viewer, ${o.seconds} s (run ${run} of ${o.runs})`);
      const before = o.loadAverage();
      const { result } = await runTestbed({ ...TESTBED_DEFAULTS, viewers: 1, seconds: o.seconds, ingest, timeseriesFile: undefined }, (m) => {
        if (m.includes('failed') || m.includes('publisher')) progress(m);
      });
      rows.push(liveLatencyRow(ingest, run, result, [round(before, 2)!, round(o.loadAverage(), 2)!]));
    }
  }
  return rows;
}

export function formatLiveLatencyTable(rows: LiveLatencyRow[]): string[] {
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '-' : String(x));
  const lines = [
    '| ingest | run | p50 (ms) | p95 (ms) | from | publisher | ingest | network | buffer | display | sound held | fps | checksum mismatches | load avg before, after |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const s = r.stagesMs;
    lines.push(
      `| ${r.ingest} | ${r.run} | ${f(r.latencyMs?.p50)} | ${f(r.latencyMs?.p95)} | ${r.latencyMs?.from ?? '-'} | ${f(s?.publisher)} | ${f(s?.ingest)} | ${f(s?.network)} | ${f(s?.buffer)} | ${f(s?.display)} | ${f(r.soundHeldMs)} | ${f(r.fps)} | ${f(r.checksumMismatches)} | ${r.loadAverage.join(', ')} |`,
    );
  }
  return lines;
}
