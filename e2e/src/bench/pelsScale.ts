/**
 * PELS at scale: N synthetic viewers (real WebRTC, no decoding, so no browser
 * CPU in the way) share a bottleneck of N x 600 kb/s with router feedback.
 * Per run: Jain's index over the viewers' MKC rates, each rate against the
 * stationary point C/N + alpha/beta, the sent rate against the MKC rate, and
 * the loss per color at the router and at the receivers (second half).
 * Lower renditions are off: the model is one layered stream per viewer.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import { MKC_PAPER_GAINS, mkcStationaryKbps } from '@pels/shared/pels/mkc';
import { mean, round } from '../testbed/metrics';
import { runTestbed, TESTBED_DEFAULTS, type TestbedResult } from '../testbed/testbed';

export const PELS_SCALE_PER_VIEWER_KBPS = 600;

export interface PelsScaleRow {
  viewers: number;
  run: number;
  capacityKbps: number;
  stationaryKbps: number;
  joined: number;
  jain: number | null;
  /** Viewers' second-half mean MKC rates / the stationary point: mean, min, max. */
  rateRatio: { mean: number | null; min: number | null; max: number | null };
  /** Mean sent rate (RTP bytes, the server's count) / mean MKC rate. */
  sentOverRate: number | null;
  /** Dropped / arrived at the router's class, second half. */
  routerLoss: Record<Color, number | null>;
  /** Lost / expected at the receivers after repair, second half, all viewers. */
  receiverLoss: Record<Color, number | null>;
  /** Base frames received complete / sent: the worst viewer's and the mean. */
  greenMin: number | null;
  greenMean: number | null;
  gammaMean: number | null;
  cpuPercentOfOneCore: TestbedResult['cpuPercentOfOneCore'];
  /** The machine's 1-minute load average before and after the run. */
  loadAverage: [number, number] | null;
}

/** Summarizes one testbed run of the preset. */
export function pelsScaleRow(n: number, run: number, r: TestbedResult, loadAverage: [number, number] | null): PelsScaleRow {
  const capacityKbps = n * PELS_SCALE_PER_VIEWER_KBPS;
  const stationaryKbps = mkcStationaryKbps(capacityKbps, n, MKC_PAPER_GAINS);
  const rates = r.viewers.map((v) => v.rateKbps).filter((x): x is number => typeof x === 'number');
  const sent = r.viewers.map((v) => v.sentKbps).filter((x): x is number => typeof x === 'number');
  const gammas = r.viewers.map((v) => v.gamma).filter((x): x is number => typeof x === 'number');
  const half = r.router?.secondHalf ?? {};
  const meanRate = mean(rates);
  const meanSent = mean(sent);
  return {
    viewers: n,
    run,
    capacityKbps,
    stationaryKbps,
    joined: r.synthetic?.joined ?? 0,
    jain: r.jain,
    rateRatio: {
      mean: round(meanRate === null ? null : meanRate / stationaryKbps, 3),
      min: round(rates.length ? Math.min(...rates) / stationaryKbps : null, 3),
      max: round(rates.length ? Math.max(...rates) / stationaryKbps : null, 3),
    },
    sentOverRate: round(meanRate && meanSent !== null ? meanSent / meanRate : null, 3),
    routerLoss: Object.fromEntries(
      COLORS.map((c) => {
        const q = half[c];
        const arrived = q ? q.sent + q.dropped : 0;
        return [c, q && arrived > 0 ? round(q.dropped / arrived, 4) : null];
      }),
    ) as Record<Color, number | null>,
    receiverLoss: r.synthetic?.lossPerColor ?? { green: null, yellow: null, red: null },
    greenMin: r.synthetic?.delivery.greenMin ?? null,
    greenMean: r.synthetic?.delivery.greenMean ?? null,
    gammaMean: round(mean(gammas), 3),
    cpuPercentOfOneCore: r.cpuPercentOfOneCore,
    loadAverage,
  };
}

export async function pelsScale(
  o: { viewers: number[]; runs: number; seconds: number; loadAverage: () => number },
  progress: (m: string) => void,
): Promise<PelsScaleRow[]> {
  const rows: PelsScaleRow[] = [];
  for (const n of o.viewers) {
    for (let run = 1; run <= o.runs; run++) {
      const capacityKbps = n * PELS_SCALE_PER_VIEWER_KBPS;
      progress(`${n} synthetic viewers on ${capacityKbps} kb/s, router feedback, ${o.seconds} s (run ${run} of ${o.runs})`);
      const before = o.loadAverage();
      const { result } = await runTestbed(
        { ...TESTBED_DEFAULTS, viewers: 0, synthetic: n, seconds: o.seconds, capacityKbps, feedback: 'router', serverEnv: { RENDITIONS: 'none' } },
        (m) => {
          if (m.startsWith('server: ') || m.includes('failed')) progress(m);
        },
      );
      const after = o.loadAverage();
      rows.push(pelsScaleRow(n, run, result, [round(before, 2)!, round(after, 2)!]));
    }
  }
  return rows;
}

export function formatPelsScaleTable(rows: PelsScaleRow[]): string[] {
  const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);
  const lines = [
    '| N | run | C (kb/s) | C/N+a/b | joined | Jain | rate / (C/N+a/b) mean (min-max) | sent / rate | gamma | router loss G / Y / R | receiver loss G / Y / R | green frames min / mean | load avg before, after |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.viewers} | ${r.run} | ${r.capacityKbps} | ${r.stationaryKbps} | ${r.joined} | ${r.jain ?? '-'} | ${r.rateRatio.mean ?? '-'} (${r.rateRatio.min ?? '-'}-${r.rateRatio.max ?? '-'}) | ${r.sentOverRate ?? '-'} | ${r.gammaMean ?? '-'} | ${COLORS.map((c) => pct(r.routerLoss[c])).join(' / ')} | ${COLORS.map((c) => pct(r.receiverLoss[c])).join(' / ')} | ${pct(r.greenMin)} / ${pct(r.greenMean)} | ${r.loadAverage ? r.loadAverage.join(', ') : '-'} |`,
    );
  }
  return lines;
}
