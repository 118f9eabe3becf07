/**
 * Loss against the number of flows (Loguinov and Radha, "Increase-Decrease
 * Congestion Control for Real-time Streaming: Scalability"): n flows of one
 * controller over one T1 bottleneck, NACK-based, each held within the
 * stream's [14, 1204] kb/s, and MKC with router feedback beside them.
 */
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import { mkcStationaryLoss } from '@pels/shared/rate/mkcRate';
import type { RateControllerName } from '@pels/shared/rate/registry';
import { renderFigure } from '../plot/svg';
import { dumbbellLoss, runDumbbell, sendingRates, type DumbbellParams, type DumbbellResult } from '../sim/dumbbell';
import { jainIndex } from '../sim/stats';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row, type SimulationCost } from './experiment';

/** The seed's T1, FIFO drop-tail (a router's default hold queue of 40 packets), 500-byte packets, 40 ms base RTT. */
export const T1_NETWORK = {
  capacityKbps: 1544,
  queuePackets: 40,
  packetBytes: 500,
  accessDelayMs: 1,
  bottleneckDelayMs: 18,
  accessKbps: 100_000,
  routerIntervalMs: 30,
} as const;
/** The stream: 14 kb/s base layer (the floor, where flows start), 1204 kb/s with all of the FGS layer. */
const BOUNDS = { initialKbps: 14, minKbps: 14, maxKbps: 1204 };
/** 10 frames/s, 3 s start-up delay. */
const PLAYBACK = { frameMs: 100, startupMs: 3000 };
const START_SPREAD_MS = 2000;

const CONTROLLERS: readonly RateControllerName[] = ['iiad', 'sqrt', 'tfrc', 'aimd', 'iscc', 'mkc'];
/** The slides' numbers: loss "as high as", p_2, s_50 = p_50 / p_2, and the base-layer underflow they state. */
const PAPER: Readonly<Partial<Record<RateControllerName, { maxLossPct: number; p2Pct: number; s50: number; underflow: string }>>> = {
  iiad: { maxLossPct: 45, p2Pct: 0.29, s50: 151, underflow: 'up to 66%' },
  sqrt: { maxLossPct: 32, p2Pct: 0.1, s50: 268, underflow: 'up to 66%' },
  tfrc: { maxLossPct: 27, p2Pct: 0.27, s50: 74, underflow: '11-40%' },
  aimd: { maxLossPct: 22, p2Pct: 0.38, s50: 59, underflow: '11-40%' },
  iscc: { maxLossPct: 3, p2Pct: 0.57, s50: 5.6, underflow: 'none' },
};

const FORMS = {
  short: { flows: [2, 10, 50], durationMs: 30_000, warmupMs: 10_000 },
  normal: { flows: [1, 2, 5, 10, 20, 30, 50], durationMs: 120_000, warmupMs: 30_000 },
  full: { flows: [1, 2, 4, 6, 8, 10, 15, 20, 25, 30, 40, 50], durationMs: 600_000, warmupMs: 30_000 },
};

function params(controller: RateControllerName, n: number, durationMs: number, seed: number): DumbbellParams {
  const random = mulberry32(seed * 1009 + n);
  return {
    ...T1_NETWORK,
    durationMs,
    capacitySteps: [],
    bounds: BOUNDS,
    flows: Array.from({ length: n }, () => ({ controller, startMs: random() * START_SPREAD_MS })),
    binMs: 1000,
    playback: PLAYBACK,
  };
}

function analyse(controller: RateControllerName, n: number, r: DumbbellResult, fromMs: number, toMs: number): Row {
  const loss = dumbbellLoss(r.flows, fromMs, toMs) ?? 0;
  const rates = r.flows.map((f) => {
    const bins = sendingRates(f, fromMs, toMs);
    return bins.reduce((a, b) => a + b, 0) / bins.length;
  });
  const due = r.flows.reduce((a, f) => a + f.framesDue.total(fromMs, toMs).sum, 0);
  const missed = r.flows.reduce((a, f) => a + f.framesMissed.total(fromMs, toMs).sum, 0);
  // Goodput: what the bottleneck carried, over its capacity.
  const delivered = rates.reduce((a, b) => a + b, 0) * (1 - loss);
  return {
    controller,
    n,
    loss: round(loss, 4),
    lossPct: round(100 * loss, 3),
    sN: null,
    utilisation: round(delivered / T1_NETWORK.capacityKbps, 3),
    jain: round(jainIndex(rates), 3),
    baseUnderflowPct: round(due > 0 ? (100 * missed) / due : undefined, 3),
    modelLossPct: controller === 'mkc' ? round(100 * mkcStationaryLoss(n, T1_NETWORK.capacityKbps, MKC_PAPER_GAINS), 3) : null,
  };
}

/** Least-squares slope of log p over log n for the points given. */
function logSlope(points: ReadonlyArray<readonly [number, number]>): number | undefined {
  if (points.length < 2) return undefined;
  const xs = points.map(([n]) => Math.log(n));
  const ys = points.map(([, p]) => Math.log(p));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  });
  return den > 0 ? num / den : undefined;
}

function run({ seed, short, full }: ExperimentOptions): ExperimentResult {
  const form = short ? FORMS.short : full ? FORMS.full : FORMS.normal;
  const cost: SimulationCost = { simulatedSeconds: 0, wallSeconds: 0, events: 0 };
  const rows: Row[] = [];
  for (const controller of CONTROLLERS) {
    for (const n of form.flows) {
      const r = runDumbbell(params(controller, n, form.durationMs, seed));
      cost.simulatedSeconds += form.durationMs / 1000;
      cost.wallSeconds += r.wallMs / 1000;
      cost.events += r.events;
      rows.push(analyse(controller, n, r, form.warmupMs, form.durationMs));
    }
  }
  const nMax = form.flows[form.flows.length - 1]!;
  const summary: Row[] = CONTROLLERS.map((controller) => {
    const mine = rows.filter((row) => row.controller === controller);
    const p2 = mine.find((row) => row.n === 2)!.loss as number;
    for (const row of mine) row.sN = p2 > 0 ? round((row.loss as number) / p2, 3) : null;
    const last = mine.find((row) => row.n === nMax)!;
    const fit = mine.filter((row) => (row.n as number) >= 2 && (row.n as number) <= 20 && (row.loss as number) > 0 && (row.loss as number) < 0.1).map((row) => [row.n as number, row.loss as number] as const);
    const paper = PAPER[controller];
    return {
      controller,
      p2Pct: round(100 * p2, 3),
      [`p${nMax}Pct`]: last.lossPct ?? null,
      maxLossPct: round(Math.max(...mine.map((row) => 100 * (row.loss as number))), 3),
      [`s${nMax}`]: last.sN ?? null,
      exponent: round(logSlope(fit), 3),
      [`underflow${nMax}Pct`]: last.baseUnderflowPct ?? null,
      [`utilisation${nMax}`]: last.utilisation ?? null,
      paperMaxLossPct: paper?.maxLossPct ?? null,
      paperP2Pct: paper?.p2Pct ?? null,
      paperS50: paper?.s50 ?? null,
      modelPct: controller === 'mkc' ? (last.modelLossPct ?? null) : null,
    };
  });
  const byName = Object.fromEntries(summary.map((s) => [s.controller, s]));
  const pLast = (c: RateControllerName): number => byName[c]![`p${nMax}Pct`] as number;
  const figure = renderFigure(`Loss against the number of flows over a 1544 kb/s drop-tail bottleneck (${form.durationMs / 1000} s runs)`, [
    {
      title: 'packet loss p_n',
      xLabel: 'flows n',
      yLabel: 'loss (%)',
      xLog: true,
      yLog: true,
      legend: 'bottom-right',
      series: [
        ...CONTROLLERS.map((c) => ({ name: c, points: rows.filter((row) => row.controller === c && (row.loss as number) > 0).map((row) => [row.n as number, row.lossPct as number] as [number, number]) })),
        { name: 'MKC model', dashed: true, points: form.flows.map((n) => [n, 100 * mkcStationaryLoss(n, T1_NETWORK.capacityKbps, MKC_PAPER_GAINS)] as [number, number]) },
      ],
    },
  ]);
  return {
    experiment: 'scalability',
    parameters: { ...T1_NETWORK, ...BOUNDS, ...PLAYBACK, flows: form.flows, durationMs: form.durationMs, warmupMs: form.warmupMs, startSpreadMs: START_SPREAD_MS, controllers: CONTROLLERS },
    rows,
    summary,
    notes: [
      `Slides at n = 50: IIAD 45%, SQRT 32%, TFRC 27%, AIMD 22%, ISCC about 3%. Lab at n = ${nMax}: IIAD ${pLast('iiad')}%, SQRT ${pLast('sqrt')}%, TFRC ${pLast('tfrc')}%, AIMD ${pLast('aimd')}%, ISCC ${pLast('iscc')}%.`,
      `s_n is p_n / p_2 (the slides start at n = 2); their s_50: IIAD 151, SQRT 268, TFRC 74, AIMD 59, ISCC 5.6.`,
      `MKC with router feedback against its stationary loss n alpha / (beta C + n alpha): lab ${pLast('mkc')}%, model ${byName.mkc!.modelPct}% at n = ${nMax}.`,
      'Base-layer underflow: share of 100 ms frames whose base data (NACK-retransmitted until its 3 s deadline) arrived late or never. Slides: IIAD and SQRT no picture up to 66% of the time, AIMD and TFRC 11-40%, ISCC none.',
    ],
    figure,
    simulation: cost,
  };
}

export const scalabilityExperiment: Experiment = {
  name: 'scalability',
  description: 'n = 1..50 flows of one controller over a T1: loss and base-layer underflow against n (increase-decrease scalability, ISCC; MKC beside)',
  run,
};
