import { routerEnhancementLoss } from '@pels/shared/pels/feedback';
import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { renderFigure, type Series } from '../plot/svg';
import type { FeedbackSource } from '../sim/receiver';
import { PAPER_NETWORK, type ScenarioResult, type SourceKind } from '../sim/scenario';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row } from './experiment';
import { PAPER_BASE_KBPS, Runner, flow, lossOf, meanRouterP, meanSample, scenario } from './setup';

/**
 * Fig. 7: gamma and red loss at two load levels. The paper gives the loss
 * levels (7% and 14%), not the flow counts; with MKC's stationary point
 * (eq. 10) the overload p = N alpha/beta / (C + N alpha/beta) is 7.4% for
 * 4 flows and 13.8% for 8 into C = 2 mb/s, so those are the two loads.
 */
const LOADS = [
  { flows: 4, paperP: 0.07 },
  { flows: 8, paperP: 0.14 },
] as const;

interface Case {
  name: string;
  source: SourceKind;
  feedback: FeedbackSource;
  routerIntervalMs: number;
  /** Green and yellow queue limit, packets (default: the testbed router's 30). */
  queuePackets?: number;
}

/**
 * The paper's setting first. Then the product's frames through pelsPolicy:
 * at the paper's T; at T = one period of 4 frames (133 ms), which the
 * bursts of whole frames need; and with room for those bursts in the green
 * and yellow queues. Last, end-to-end loss (the server's RTCP path) instead
 * of router feedback.
 */
const CASES: readonly Case[] = [
  { name: 'paper', source: 'fgs', feedback: 'router', routerIntervalMs: 30 },
  { name: 'frames-T30', source: 'frames', feedback: 'router', routerIntervalMs: 30 },
  { name: 'frames-T133', source: 'frames', feedback: 'router', routerIntervalMs: 133 },
  { name: 'frames-T133-q60', source: 'frames', feedback: 'router', routerIntervalMs: 133, queuePackets: 60 },
  { name: 'paper-rtcp', source: 'fgs', feedback: 'rtcp', routerIntervalMs: 30 },
];

const DURATION_MS = { full: 100_000, short: 30_000 };

function summarize(c: Case, load: (typeof LOADS)[number], r: ScenarioResult, from: number, to: number): Row {
  const p = meanRouterP(r, from, to);
  const rates = r.flows.map((_, i) => meanSample(r, i, 'rateKbps', from, to));
  const gammas = r.flows.map((_, i) => meanSample(r, i, 'gamma', from, to));
  const rate = rates.reduce((a, b) => a + b, 0) / rates.length;
  const enhancementLoss = lossOf(r, 'enhancement', from, to);
  return {
    case: c.name,
    flows: load.flows,
    feedback: c.feedback,
    T_ms: c.routerIntervalMs,
    queue: c.queuePackets ?? PAPER_NETWORK.limits.yellow,
    rateKbps: round(rate, 4),
    routerP: round(p, 3),
    paperP: load.paperP,
    enhLoss: round(enhancementLoss, 3),
    gamma: round(gammas.reduce((a, b) => a + b, 0) / gammas.length, 3),
    // What gamma must be for red loss p_thr, given the loss the enhancement layer actually had.
    gammaStar: round(enhancementLoss === undefined ? undefined : enhancementLoss / GAMMA_DEFAULTS.pThr, 3),
    // The same from the router's p, as the ControlLoop computes it (the paper's source only: it sends exactly its rate).
    gammaStarRouter: c.source === 'fgs' && c.feedback === 'router' ? round(routerEnhancementLoss(p, rate, PAPER_BASE_KBPS) / GAMMA_DEFAULTS.pThr, 3) : null,
    redLoss: round(lossOf(r, 'red', from, to), 3),
    paperRedLoss: c.name === 'paper' ? GAMMA_DEFAULTS.pThr : null,
    yellowLoss: round(lossOf(r, 'yellow', from, to), 3),
    greenLoss: round(lossOf(r, 'green', from, to), 3),
  };
}

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const duration = short ? DURATION_MS.short : DURATION_MS.full;
  const from = duration / 2;
  const runner = new Runner();
  const rows: Row[] = [];
  const summary: Row[] = [];
  const gammaSeries: Series[] = [];
  const redSeries: Series[] = [];
  for (const c of CASES) {
    for (const load of LOADS) {
      const flows = Array.from({ length: load.flows }, () => flow(c.source));
      const q = c.queuePackets;
      const limits = q === undefined ? PAPER_NETWORK.limits : { ...PAPER_NETWORK.limits, green: q, yellow: q };
      const r = runner.run(scenario(seed, duration, c.feedback, flows, { routerIntervalMs: c.routerIntervalMs, limits }));
      summary.push(summarize(c, load, r, from, duration));
      const bins = Math.floor(duration / r.params.binMs);
      const red: Array<[number, number]> = [];
      for (let i = 0; i < bins; i++) {
        const [a, b] = [i * r.params.binMs, (i + 1) * r.params.binMs];
        const redLoss = lossOf(r, 'red', a, b);
        red.push([a / 1000, redLoss ?? Number.NaN]);
        rows.push({
          case: c.name,
          flows: load.flows,
          tS: a / 1000,
          gammaFlow1: round(meanSample(r, 0, 'gamma', a, b), 4),
          rateFlow1Kbps: round(meanSample(r, 0, 'rateKbps', a, b), 4),
          routerP: round(meanRouterP(r, a, b), 4),
          redLoss: round(redLoss, 4),
          yellowLoss: round(lossOf(r, 'yellow', a, b), 4),
          greenLoss: round(lossOf(r, 'green', a, b), 4),
        });
      }
      if (c.name === 'paper') {
        const label = `${load.flows} flows (paper: p = ${Math.round(load.paperP * 100)}%)`;
        gammaSeries.push({ name: label, points: r.flows[0]!.samples.map((s) => [s.tMs / 1000, s.gamma] as [number, number]) });
        redSeries.push({ name: label, points: red });
      }
    }
  }
  const figure = renderFigure('Gamma and red loss, paper source and router feedback: 4 mb/s, half to the Internet queue, sigma 0.5, p_thr 0.75, T 30 ms (paper Fig. 7)', [
    { title: 'gamma of flow 1 (sampled every 100 ms)', xLabel: 'time (s)', yLabel: 'gamma', y: [0, 0.6], legend: 'top-right', series: gammaSeries },
    { title: 'red packet loss at the router (1 s bins)', xLabel: 'time (s)', yLabel: 'red loss p_R', y: [0, 1.05], legend: 'bottom-right', references: [{ y: GAMMA_DEFAULTS.pThr, label: 'p_thr', side: 'left' }], series: redSeries },
  ]);
  const of = (name: string): Row[] => summary.filter((s) => s.case === name);
  const [paper, rtcp, t30, t133, q60] = [of('paper'), of('paper-rtcp'), of('frames-T30'), of('frames-T133'), of('frames-T133-q60')];
  const list = (rows: Row[], key: string): string => rows.map((s) => s[key]).join(' and ');
  return {
    experiment: 'gamma-red-loss',
    parameters: { capacityKbps: PAPER_NETWORK.capacityKbps, internetShare: PAPER_NETWORK.internetShare, packetBytes: PAPER_NETWORK.fgs.packetBytes, reportIntervalMs: PAPER_NETWORK.reportIntervalMs, sigma: GAMMA_DEFAULTS.sigma, pThr: GAMMA_DEFAULTS.pThr, gammaLow: GAMMA_DEFAULTS.gammaLow, loads: LOADS.map((l) => l.flows), durationMs: duration, measuredFromMs: from },
    rows,
    summary,
    notes: [
      `Paper: p = 7% and 14%, red loss stabilized at 75% for both, yellow loss zero. Lab (paper source, router feedback): p = ${list(paper, 'routerP')}, red loss ${list(paper, 'redLoss')}, yellow loss ${list(paper, 'yellowLoss')}, green loss ${list(paper, 'greenLoss')}.`,
      `gamma settles at ${list(paper, 'gamma')}, against p_enh/p_thr = ${list(paper, 'gammaStar')}: the enhancement loss (the base layer is never dropped) over p_thr.`,
      `Product frames at T = 30 ms: router p is noisy (whole frames per interval), rates overshoot (${list(t30, 'rateKbps')} kb/s), yellow loss ${list(t30, 'yellowLoss')}. At T = 133 ms: rates ${list(t133, 'rateKbps')} kb/s, yellow loss ${list(t133, 'yellowLoss')} from frame bursts into 30-packet queues; with 60-packet queues ${list(q60, 'yellowLoss')} and red loss ${list(q60, 'redLoss')}.`,
      `End-to-end (RTCP) feedback instead, through the server's receiver-report tracker: rates ${list(rtcp, 'rateKbps')} kb/s, red loss ${list(rtcp, 'redLoss')}, yellow loss ${list(rtcp, 'yellowLoss')}. A starved red queue delivers nothing and so gets no receiver report; the tracker counts the packets of a stream silent for 1.5 s as lost, so MKC backs off instead of pushing into yellow.`,
    ],
    figure,
    simulation: runner.cost,
  };
}

export const gammaRedLossExperiment: Experiment = {
  name: 'gamma-red-loss',
  description: 'gamma over time and red loss at two loads with the paper\'s settings (Fig. 7), plus the product\'s frames and end-to-end feedback',
  run,
};
