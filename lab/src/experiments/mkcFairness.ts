import { MKC_PAPER_GAINS, mkcStationaryKbps } from '@pels/shared/pels/mkc';
import { renderFigure, type Panel } from '../plot/svg';
import { PAPER_NETWORK, type ScenarioResult } from '../sim/scenario';
import { jainIndex } from '../sim/stats';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row } from './experiment';
import { PAPER_BASE_KBPS, PAPER_PELS_KBPS, Runner, flow, meanSample, scenario } from './setup';

/** Section 6.4: F1 from time 0, F2 from 10 s, both from 128 kb/s; alpha 20 kb/s, beta 0.5. The short run compresses it. */
const TIMING = { full: { joinMs: 10_000, durationMs: 60_000 }, short: { joinMs: 2_000, durationMs: 35_000 } };
const BOTTLENECK_DELAY_MS = 5;
/** One-way access delays: RTT = 2 (access + bottleneck) = 20 ms, or 200 ms for the far flow. */
const CASES = [
  { name: 'equal-rtt', accessMs: [5, 5] },
  { name: 'unequal-rtt', accessMs: [5, 95] },
] as const;
/** Fair: the flows' 1 s mean rates within this share of the fair rate of each other. */
const FAIR_WITHIN = 0.1;
const FAIR_WINDOW_MS = 1000;
/** A flow has ramped up once it reaches this share of its stationary rate. */
const RAMPED = 0.95;

/**
 * When the two flows' 1 s mean rates first come within FAIR_WITHIN of the
 * fair rate of each other after the join, and the largest gap after that
 * (router feedback noise keeps them wandering a little), as a share of the fair rate.
 */
function fairness(r: ScenarioResult, joinMs: number, durationMs: number, fairKbps: number): { fairAtMs: number | undefined; gapAfter: number } {
  let fairAtMs: number | undefined;
  let gapAfter = 0;
  for (let t = joinMs; t + FAIR_WINDOW_MS <= durationMs; t += FAIR_WINDOW_MS) {
    const gap = Math.abs(meanSample(r, 0, 'rateKbps', t, t + FAIR_WINDOW_MS) - meanSample(r, 1, 'rateKbps', t, t + FAIR_WINDOW_MS)) / fairKbps;
    if (fairAtMs === undefined && gap <= FAIR_WITHIN) fairAtMs = t;
    else if (fairAtMs !== undefined) gapAfter = Math.max(gapAfter, gap);
  }
  return { fairAtMs, gapAfter };
}

function analyse(name: string, accessMs: readonly number[], r: ScenarioResult, joinMs: number, durationMs: number): Row {
  const alone = mkcStationaryKbps(PAPER_PELS_KBPS, 1, MKC_PAPER_GAINS);
  const fair = mkcStationaryKbps(PAPER_PELS_KBPS, 2, MKC_PAPER_GAINS);
  const rampedAt = r.flows[0]!.samples.find((s) => s.rateKbps >= RAMPED * alone)?.tMs;
  const { fairAtMs, gapAfter } = fairness(r, joinMs, durationMs, fair);
  // The last quarter, on whole statistics bins (goodput is binned by the second).
  const tail = Math.ceil((durationMs * 0.75) / r.params.binMs) * r.params.binMs;
  const rates = [meanSample(r, 0, 'rateKbps', tail, durationMs), meanSample(r, 1, 'rateKbps', tail, durationMs)];
  const goodput = r.flows.map((f) => (f.receiver.goodputBytes.total(tail, durationMs).sum * 8) / (durationMs - tail));
  return {
    case: name,
    rttF1Ms: 2 * (accessMs[0]! + BOTTLENECK_DELAY_MS),
    rttF2Ms: 2 * (accessMs[1]! + BOTTLENECK_DELAY_MS),
    f1AloneKbps: round(meanSample(r, 0, 'rateKbps', joinMs / 2, joinMs), 4),
    modelAloneKbps: alone,
    f1RampS: round(rampedAt === undefined ? undefined : rampedAt / 1000, 3),
    f1Kbps: round(rates[0], 4),
    f2Kbps: round(rates[1], 4),
    modelFairKbps: fair,
    goodputF1Kbps: round(goodput[0], 4),
    goodputF2Kbps: round(goodput[1], 4),
    jain: round(jainIndex(rates), 5),
    fairAfterJoinS: round(fairAtMs === undefined ? undefined : (fairAtMs - joinMs) / 1000, 3),
    maxGapAfterFair: round(fairAtMs === undefined ? undefined : gapAfter, 3),
  };
}

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const { joinMs, durationMs } = short ? TIMING.short : TIMING.full;
  const runner = new Runner();
  const rows: Row[] = [];
  const summary: Row[] = [];
  const panels: Panel[] = [];
  for (const c of CASES) {
    const flows = [flow('fgs', 0, c.accessMs[0]), flow('fgs', joinMs, c.accessMs[1])];
    const r = runner.run(scenario(seed, durationMs, 'router', flows, { bottleneckDelayMs: BOTTLENECK_DELAY_MS }));
    const row = analyse(c.name, c.accessMs, r, joinMs, durationMs);
    summary.push(row);
    const f2ByTime = new Map(r.flows[1]!.samples.map((s) => [s.tMs, s.rateKbps]));
    for (const s of r.flows[0]!.samples) rows.push({ case: c.name, tS: s.tMs / 1000, f1Kbps: round(s.rateKbps, 5), f2Kbps: round(f2ByTime.get(s.tMs), 5) });
    panels.push({
      title: `RTT ${row.rttF1Ms} ms (F1) and ${row.rttF2Ms} ms (F2)`,
      xLabel: 'time (s)',
      yLabel: 'MKC rate (kb/s)',
      y: [0, 2400],
      legend: 'bottom-right',
      references: [
        { y: row.modelAloneKbps as number, label: 'C + alpha/beta' },
        { y: row.modelFairKbps as number, label: 'C/2 + alpha/beta', side: 'left' },
      ],
      series: r.flows.map((f, i) => ({ name: `F${i + 1}`, points: f.samples.map((s) => [s.tMs / 1000, s.rateKbps] as [number, number]) })),
    });
  }
  const figure = renderFigure(`MKC convergence and fairness: F2 joins at ${joinMs / 1000} s, alpha 20 kb/s, beta 0.5, C = 2 mb/s (paper Fig. 9 right)`, panels);
  const [eq, uneq] = summary as [Row, Row];
  return {
    experiment: 'mkc-fairness',
    parameters: { alphaKbps: MKC_PAPER_GAINS.alphaKbps, beta: MKC_PAPER_GAINS.beta, initialKbps: PAPER_BASE_KBPS, pelsCapacityKbps: PAPER_PELS_KBPS, routerIntervalMs: PAPER_NETWORK.routerIntervalMs, joinMs, durationMs, fairWithin: FAIR_WITHIN },
    rows,
    summary,
    notes: [
      `Paper: F1 reaches the link capacity in about 0.1 s; after F2 joins at 10 s both converge to 1 mb/s each in about 13 s. Lab: F1 reaches ${RAMPED * 100}% of C + alpha/beta = ${eq.modelAloneKbps} kb/s at ${eq.f1RampS} s (RTT 20 ms); the flows' 1 s means are within ${FAIR_WITHIN * 100}% of each other ${eq.fairAfterJoinS} s after F2 joins, and stay within ${round(100 * (eq.maxGapAfterFair as number), 2)}% after.`,
      `Stationary point (eq. 10) C/N + alpha/beta = ${eq.modelFairKbps} kb/s: lab ${eq.f1Kbps} and ${eq.f2Kbps} kb/s (Jain ${eq.jain}); the paper's "1 mb/s each" leaves out alpha/beta = 40 kb/s.`,
      `Unequal RTTs (${uneq.rttF1Ms} and ${uneq.rttF2Ms} ms): ${uneq.f1Kbps} and ${uneq.f2Kbps} kb/s (Jain ${uneq.jain}), fair ${uneq.fairAfterJoinS} s after the join: MKC does not penalize the longer RTT (Lemma 6), but the far flow converges more slowly, since eq. 8 steps from r(k - D): one effective step per round trip.`,
    ],
    figure,
    simulation: runner.cost,
  };
}

export const mkcFairnessExperiment: Experiment = {
  name: 'mkc-fairness',
  description: 'two MKC flows, the second joining later: convergence, fair share C/N + alpha/beta, equal and unequal RTTs (Fig. 9 right)',
  run,
};
