/**
 * Useless-packet transmission avoidance on one congested link (Wu and
 * Hassan): a 1.76 Mb/s CBR video, a TCP Reno flow and a 2 Mb/s ON-OFF source
 * through a 4 Mb/s WFQ or CSFQ bottleneck, with and without UPTA. While the
 * ON-OFF source is on (U, 3-15 s of 15) the video's fair share (4/3 Mb/s)
 * leaves it about 24% loss, above its 12% threshold, so its packets are
 * useless; UPTA drops them at the router and TCP gets the bandwidth.
 */
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { maxMinShare } from '@pels/shared/upta/upta';
import { renderFigure, type Panel } from '../plot/svg';
import type { FairScheduler } from '../sim/fairBottleneck';
import { jainIndex } from '../sim/stats';
import { runUptaScenario, UPTA_NETWORK, type UptaScenarioResult } from '../sim/uptaScenario';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row, type SimulationCost } from './experiment';

const THRESHOLD = 0.12;
const DURATION_MS = 15_000;
/** U interval of scenarios 1-5, s. */
const ON_S = [3, 6, 9, 12, 15];
/** The paper's bandwidth waste per unit of phi (eta), Mb/s. */
const ETA_MBPS = 1.33;
const SCHEDULERS: ReadonlyArray<{ name: string; scheduler: FairScheduler; upta: boolean }> = [
  { name: 'CSFQ', scheduler: 'csfq', upta: false },
  { name: 'CSFQ+', scheduler: 'csfq', upta: true },
  { name: 'WFQ', scheduler: 'wfq', upta: false },
  { name: 'WFQ+', scheduler: 'wfq', upta: true },
];
const FILES = [15_000, 150_000, 1_500_000];
/** CSFQ runs per cell (its drops are random); WFQ is deterministic. */
const CSFQ_SEEDS = 5;

/** The paper's tables (rows: scenarios 1-5; columns CSFQ, CSFQ+, WFQ, WFQ+). */
const PAPER = {
  tcpMbps: [[1.79, 1.93, 1.86, 1.99], [1.69, 1.92, 1.75, 1.97], [1.54, 1.9, 1.6, 1.95], [1.4, 1.88, 1.46, 1.93], [1.25, 1.86, 1.33, 1.91]],
  goodputMbps: [[1.51, 1.61, 1.54, 1.77], [1.34, 1.52, 1.49, 1.65], [1.18, 1.51, 1.33, 1.62], [1.02, 1.48, 1.17, 1.59], [0.94, 1.38, 1.13, 1.58]],
  intelligibility: [[0.74, 0.74, 0.76, 0.76], [0.53, 0.52, 0.58, 0.56], [0.36, 0.34, 0.38, 0.35], [0.13, 0.11, 0.15, 0.14], [0, 0, 0, 0]],
  jainU: [[0.9923, 0.9972, 0.9987, 0.9989], [0.9956, 0.9971, 0.9996, 0.9994], [0.9966, 0.9982, 0.9998, 0.9997], [0.9963, 0.9985, 0.9999, 0.9998], [0.9965, 0.9995, 1.0, 0.9998]],
  jainI: [[0.9987, 0.9987, 0.9998, 0.9998], [0.9983, 1.0, 0.9999, 0.9999], [0.9986, 1.0, 0.9999, 1.0], [0.9988, 1.0, 1.0, 1.0], [null, null, null, null]],
  /** Scenario 1 download times, s (rows 15 KB, 150 KB, 1.5 MB). */
  downloadS: [[0.23, 0.14, 0.18, 0.08], [1.62, 0.96, 1.29, 0.82], [8.85, 7.93, 8.31, 7.05]],
} as const;

const videoKbps = (UPTA_NETWORK.videoPacketBytes * 8 * UPTA_NETWORK.videoPacketsPerS) / 1000;

/**
 * Jain's index over throughputs each normalised by the flow's max-min fair
 * share of the link given the flows' demands (the only normalisation that
 * gives indices near 1 when the video takes less than TCP).
 */
function normalisedJain(measuredKbps: readonly number[], demandsKbps: readonly number[]): number {
  const share = maxMinShare(demandsKbps, UPTA_NETWORK.capacityKbps);
  return jainIndex(measuredKbps.map((m, i) => m / Math.min(demandsKbps[i]!, share)));
}

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const scenarios = short ? [1, 5] : [1, 2, 3, 4, 5];
  const cost: SimulationCost = { simulatedSeconds: 0, wallSeconds: 0, events: 0 };
  const simulate = (scheduler: FairScheduler, upta: boolean, onS: number, k: number, downloadBytes?: number): UptaScenarioResult => {
    const t0 = performance.now();
    const r = runUptaScenario({ scheduler, uptaThreshold: upta ? THRESHOLD : undefined, onMs: onS * 1000, durationMs: DURATION_MS, random: mulberry32(seed * 1000 + k), ...(downloadBytes === undefined ? {} : { downloadBytes }) }, THRESHOLD);
    cost.simulatedSeconds += DURATION_MS / 1000;
    cost.wallSeconds += (performance.now() - t0) / 1000;
    cost.events += r.events;
    return r;
  };
  const rows: Row[] = [];
  const summary: Row[] = [];
  const timeline = new Map<string, UptaScenarioResult>();
  for (const sc of scenarios) {
    const onS = ON_S[sc - 1]!;
    const offS = DURATION_MS / 1000 - onS;
    const phi = onS / (DURATION_MS / 1000);
    const perScheduler = SCHEDULERS.map((s, j) => {
      // WFQ is deterministic; CSFQ drops at random, so its cells are means over seeds.
      const runs = Array.from({ length: s.scheduler === 'csfq' && !short ? CSFQ_SEEDS : 1 }, (_, k) => simulate(s.scheduler, s.upta, onS, sc * 10 + j + 1000 * k));
      if (sc === 3) timeline.set(s.name, runs[0]!);
      const m = (f: (r: UptaScenarioResult) => number): number => runs.reduce((a, r) => a + f(r), 0) / runs.length;
      const tcpU = m((r) => (r.tcpWireBytesU * 8) / onS / 1000);
      const tcpI = offS > 0 ? m((r) => (r.tcpWireBytesI * 8) / offS / 1000) : null;
      const onOffU = m((r) => (r.onOffBytesU * 8) / onS / 1000);
      const videoI = offS > 0 ? m((r) => (r.videoBytesI * 8) / offS / 1000) : null;
      const row: Row = {
        part: 'throughput',
        scenario: sc,
        scheduler: s.name,
        phi,
        runs: runs.length,
        tcpMbps: round(m((r) => ((r.tcpWireBytesU + r.tcpWireBytesI) * 8) / DURATION_MS / 1000), 3),
        goodputMbps: round(m((r) => (r.tcpGoodputBytes * 8) / DURATION_MS / 1000), 3),
        tcpUMbps: round(tcpU / 1000, 3),
        tcpIMbps: tcpI === null ? null : round(tcpI / 1000, 3),
        onOffUMbps: round(onOffU / 1000, 3),
        videoLossU: round(m((r) => r.videoLostU / r.videoSentU), 3),
        videoLossI: offS > 0 ? round(m((r) => r.videoLostI / r.videoSentI), 3) : null,
        intelligibility: round(m((r) => r.framesIntelligible / r.framesSent), 3),
        // U: TCP and ON-OFF only (the paper leaves the video out there); I: video and TCP.
        jainU: round(normalisedJain([tcpU, onOffU], [Number.POSITIVE_INFINITY, UPTA_NETWORK.onOffKbps]), 4),
        jainI: tcpI === null || videoI === null ? null : round(normalisedJain([videoI, tcpI], [videoKbps, Number.POSITIVE_INFINITY]), 4),
        // After the first second (the estimators' start-up).
        uptaChangesAfter1s: s.upta ? round(m((r) => r.uptaToggles.filter((t) => t >= 1000).length), 3) : null,
        paperTcpMbps: PAPER.tcpMbps[sc - 1]![j]!,
        paperGoodputMbps: PAPER.goodputMbps[sc - 1]![j]!,
        paperIntelligibility: PAPER.intelligibility[sc - 1]![j]!,
        paperJainU: PAPER.jainU[sc - 1]![j]!,
        paperJainI: PAPER.jainI[sc - 1]![j]!,
      };
      rows.push(row);
      return row;
    });
    const col = (name: string, key: string): number => perScheduler[SCHEDULERS.findIndex((s) => s.name === name)]![key] as number;
    const ideal = (ETA_MBPS * phi) / 2;
    summary.push({
      scenario: sc,
      uS: onS,
      CSFQ: col('CSFQ', 'tcpMbps'),
      'CSFQ+': col('CSFQ+', 'tcpMbps'),
      WFQ: col('WFQ', 'tcpMbps'),
      'WFQ+': col('WFQ+', 'tcpMbps'),
      'paper CSFQ/CSFQ+/WFQ/WFQ+': PAPER.tcpMbps[sc - 1]!.join(' / '),
      idealGain: round(ideal, 3),
      'gain/ideal CSFQ': round((col('CSFQ+', 'tcpMbps') - col('CSFQ', 'tcpMbps')) / ideal, 3),
      'gain/ideal WFQ': round((col('WFQ+', 'tcpMbps') - col('WFQ', 'tcpMbps')) / ideal, 3),
      'paper gain/ideal CSFQ': round((PAPER.tcpMbps[sc - 1]![1]! - PAPER.tcpMbps[sc - 1]![0]!) / ideal, 3),
      'paper gain/ideal WFQ': round((PAPER.tcpMbps[sc - 1]![3]! - PAPER.tcpMbps[sc - 1]![2]!) / ideal, 3),
    });
  }

  // Table 5: download times in scenario 1; Fig. 12: the 1.5 MB download in every scenario.
  const downloads: Row[] = [];
  FILES.forEach((bytes, f) => {
    SCHEDULERS.forEach((s, j) => {
      const r = simulate(s.scheduler, s.upta, ON_S[0]!, 100 + f * 10 + j, bytes);
      downloads.push({ part: 'download', scenario: 1, scheduler: s.name, fileBytes: bytes, downloadS: round(r.downloadS ?? undefined, 3), paperDownloadS: PAPER.downloadS[f]![j]! });
    });
  });
  if (!short) {
    for (const sc of scenarios.slice(1)) {
      SCHEDULERS.forEach((s, j) => {
        const r = simulate(s.scheduler, s.upta, ON_S[sc - 1]!, 200 + sc * 10 + j, FILES[2]);
        downloads.push({ part: 'download', scenario: sc, scheduler: s.name, fileBytes: FILES[2]!, downloadS: round(r.downloadS ?? undefined, 3), paperDownloadS: sc === 4 && s.name === 'WFQ' ? 11.23 : sc === 4 && s.name === 'WFQ+' ? 7.93 : null });
      });
    }
  }
  rows.push(...downloads);

  const thr = rows.filter((r) => r.part === 'throughput');
  const of = (name: string, key: string): number[] => thr.filter((r) => r.scheduler === name).map((r) => r[key] as number);
  const dl = (name: string, bytes: number, sc = 1): number => downloads.find((d) => d.scheduler === name && d.fileBytes === bytes && d.scenario === sc)!.downloadS as number;
  const reduction = (base: string, plus: string, bytes: number, sc = 1): number | null => round(100 * (1 - dl(plus, bytes, sc) / dl(base, bytes, sc)), 3);
  const intelDiff = Math.max(...scenarios.map((_, i) => Math.max(Math.abs(of('WFQ+', 'intelligibility')[i]! - of('WFQ', 'intelligibility')[i]!), Math.abs(of('CSFQ+', 'intelligibility')[i]! - of('CSFQ', 'intelligibility')[i]!))));
  const allJain = thr.flatMap((r) => [r.jainU, r.jainI]).filter((x): x is number => typeof x === 'number');
  const notes = [
    `Video loss while unintelligible (U) without UPTA: WFQ ${of('WFQ', 'videoLossU').join(', ')}; CSFQ ${of('CSFQ', 'videoLossU').join(', ')} (paper: "around 25%", fair share 4/3 of 1.76 Mb/s gives 24.3%). With UPTA the router drops it: WFQ+ ${of('WFQ+', 'videoLossU').join(', ')}; CSFQ+ ${of('CSFQ+', 'videoLossU').join(', ')}.`,
    `Video loss while intelligible (I), with UPTA: WFQ+ ${of('WFQ+', 'videoLossI').filter((x) => x !== null).join(', ')}; CSFQ+ ${of('CSFQ+', 'videoLossI').filter((x) => x !== null).join(', ')} (the ON-OFF source's rate estimate takes ~K = ${UPTA_NETWORK.rateAveragingMs} ms to fade after it stops).`,
    `TCP gain against the ideal omega/2 (Table 3, Fig. 11; paper ratios 0.83-1.05): WFQ ${summary.map((s) => s['gain/ideal WFQ']).join(', ')}; CSFQ ${summary.map((s) => s['gain/ideal CSFQ']).join(', ')}.`,
    `TCP in I intervals: WFQ ${of('WFQ', 'tcpIMbps').filter((x) => x !== null).join(', ')} Mb/s (work-conserving: 4 - 1.76 = 2.24; the paper's Table 3 implies about 2.0); CSFQ ${of('CSFQ', 'tcpIMbps').filter((x) => x !== null).join(', ')} Mb/s.`,
    `Intelligibility index (Table 6; UPTA changes it by at most 0.03 in the paper): lab largest change ${round(intelDiff, 3)}; WFQ ${of('WFQ', 'intelligibility').join(', ')} vs paper ${scenarios.map((s) => PAPER.intelligibility[s - 1]![2]).join(', ')}.`,
    `Fairness (Table 7, all >= 0.99 in the paper): lab lowest ${round(Math.min(...allJain), 4)} over ${allJain.length} indices (throughput normalised by each flow's max-min share).`,
    `Download times, scenario 1 (Table 5; paper WFQ reductions 55/36/15%, CSFQ 39/41/10%): WFQ ${FILES.map((b) => reduction('WFQ', 'WFQ+', b)).join('/')}%, CSFQ ${FILES.map((b) => reduction('CSFQ', 'CSFQ+', b)).join('/')}%.${short ? '' : ` Scenario 4, 1.5 MB, WFQ: ${dl('WFQ', FILES[2]!, 4)} -> ${dl('WFQ+', FILES[2]!, 4)} s (paper 11.23 -> 7.93 s, 29%).`}`,
    `UPTA decisions for the video after the first second (each start or stop of dropping; the U-I boundary is one): WFQ+ ${of('WFQ+', 'uptaChangesAfter1s').join(', ')}; CSFQ+ ${of('CSFQ+', 'uptaChangesAfter1s').join(', ')} (a TCP timeout lowers TCP's measured rate, raises the share and lets the video through for a moment).`,
  ];

  const bins = (name: string, flow: number): Array<[number, number]> => {
    const b = timeline.get(name)?.binsKbps[flow] ?? [];
    // 500 ms means of the 100 ms bins, Mb/s.
    const out: Array<[number, number]> = [];
    for (let i = 0; i + 5 <= b.length && i * 100 < DURATION_MS; i += 5) out.push([(i * 100) / 1000, b.slice(i, i + 5).reduce((a, x) => a + x, 0) / 5 / 1000]);
    return out;
  };
  const panels: Panel[] = [
    {
      title: 'TCP throughput over 15 s (Table 3)',
      xLabel: 'scenario (U = 3 x scenario s)',
      yLabel: 'Mb/s',
      series: [
        ...SCHEDULERS.map((s) => ({ name: `lab ${s.name}`, points: scenarios.map((sc, i) => [sc, of(s.name, 'tcpMbps')[i]!] as [number, number]) })),
        ...SCHEDULERS.map((s, j) => ({ name: `paper ${s.name}`, style: 'dots' as const, points: scenarios.map((sc) => [sc, PAPER.tcpMbps[sc - 1]![j]!] as [number, number]) })),
      ],
      legend: 'bottom-left',
    },
    {
      title: 'intelligibility index (Table 6)',
      xLabel: 'scenario',
      yLabel: 'share of frames',
      y: [0, 1],
      series: [
        ...SCHEDULERS.map((s) => ({ name: `lab ${s.name}`, points: scenarios.map((sc, i) => [sc, of(s.name, 'intelligibility')[i]!] as [number, number]) })),
        { name: 'paper WFQ', style: 'dots' as const, points: scenarios.map((sc) => [sc, PAPER.intelligibility[sc - 1]![2]!] as [number, number]) },
      ],
      legend: 'top-right',
    },
  ];
  if (timeline.size) {
    for (const name of ['WFQ', 'WFQ+']) {
      panels.push({
        title: `scenario 3 (U = 9 s), ${name}: throughput of each flow`,
        xLabel: 'time (s)',
        yLabel: 'Mb/s (500 ms means)',
        y: [0, 4],
        series: [
          { name: 'video', points: bins(name, 0) },
          { name: 'TCP', points: bins(name, 1) },
          { name: 'ON-OFF', points: bins(name, 2) },
        ],
        legend: 'top-right',
      });
    }
  }
  return {
    experiment: 'upta',
    parameters: { ...UPTA_NETWORK, threshold: THRESHOLD, durationMs: DURATION_MS, scenariosUS: scenarios.map((s) => ON_S[s - 1]!), etaMbps: ETA_MBPS, files: FILES },
    rows,
    summary,
    notes,
    figure: renderFigure('Useless-packet transmission avoidance: one congested 4 Mb/s link, WFQ and CSFQ with and without UPTA', panels),
    simulation: cost,
  };
}

export const uptaExperiment: Experiment = {
  name: 'upta',
  description: 'useless-packet transmission avoidance: video, TCP and ON-OFF through WFQ and CSFQ with and without UPTA (TCP gain vs omega/2, intelligibility, fairness, download times)',
  run,
};
