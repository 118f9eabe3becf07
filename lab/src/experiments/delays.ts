import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import { renderFigure } from '../plot/svg';
import { PAPER_NETWORK } from '../sim/scenario';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row } from './experiment';
import { Runner, delayOf, flow, lossOf, meanRouterP, scenario } from './setup';

/** Section 6.3: two new flows (from 128 kb/s) every 50 s; the short run compresses the schedule. */
const SCHEDULE = {
  full: { joinEveryMs: 50_000, phases: 4 },
  short: { joinEveryMs: 10_000, phases: 3 },
};
const FLOWS_PER_JOIN = 2;
/** Each color drawn in its own color (a darker yellow, readable on white). */
const COLOR = { green: '#2ca02c', yellow: '#d4a000', red: '#d62728' };
/** Each phase's first part is MKC converging; the summary skips it. */
const SETTLE_FRACTION = 0.4;

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const { joinEveryMs, phases } = short ? SCHEDULE.short : SCHEDULE.full;
  const duration = joinEveryMs * phases;
  const flows = Array.from({ length: phases * FLOWS_PER_JOIN }, (_, i) => flow('fgs', Math.floor(i / FLOWS_PER_JOIN) * joinEveryMs));
  const runner = new Runner();
  const r = runner.run(scenario(seed, duration, 'router', flows));
  const bin = r.params.binMs;
  const rows: Row[] = [];
  for (let t = 0; t < duration; t += bin) {
    rows.push({
      tS: t / 1000,
      flows: FLOWS_PER_JOIN * (Math.floor(t / joinEveryMs) + 1),
      greenMs: round(delayOf(r, 'green', t, t + bin), 4),
      yellowMs: round(delayOf(r, 'yellow', t, t + bin), 4),
      redMs: round(delayOf(r, 'red', t, t + bin), 4),
      redLoss: round(lossOf(r, 'red', t, t + bin), 4),
    });
  }
  const redLimit = PAPER_NETWORK.limits.red;
  const summary: Row[] = [];
  for (let k = 0; k < phases; k++) {
    const from = k * joinEveryMs + SETTLE_FRACTION * joinEveryMs;
    const to = (k + 1) * joinEveryMs;
    const red = r.classes.red;
    const served = red.arrivals.total(from, to).sum - red.drops.total(from, to).sum;
    const servedPerS = served / ((to - from) / 1000);
    summary.push({
      flows: FLOWS_PER_JOIN * (k + 1),
      fromS: from / 1000,
      toS: to / 1000,
      routerP: round(meanRouterP(r, from, to), 3),
      greenMs: round(delayOf(r, 'green', from, to), 3),
      yellowMs: round(delayOf(r, 'yellow', from, to), 3),
      redMs: round(delayOf(r, 'red', from, to), 4),
      // A red queue that is full whenever a packet arrives (it drops 75%) holds each packet for its limit over its service rate.
      fullQueueRedMs: round(servedPerS > 0 ? (1000 * redLimit) / servedPerS : undefined, 4),
      redServedKbps: round((servedPerS * PAPER_NETWORK.fgs.packetBytes * 8) / 1000, 3),
      // At MKC's stationary point the router drops N alpha/beta kb/s, all red, and red loses p_thr of what it is sent.
      redServedModelKbps: round(((FLOWS_PER_JOIN * (k + 1) * MKC_PAPER_GAINS.alphaKbps) / MKC_PAPER_GAINS.beta) * (1 / GAMMA_DEFAULTS.pThr - 1), 3),
      redLoss: round(lossOf(r, 'red', from, to), 3),
      yellowLoss: round(lossOf(r, 'yellow', from, to), 3),
    });
  }
  const series = (key: 'greenMs' | 'yellowMs' | 'redMs'): Array<[number, number]> => rows.map((row) => [row.tS as number, (row[key] as number | null) ?? Number.NaN]);
  const figure = renderFigure(`Queueing delay per color, ${FLOWS_PER_JOIN} flows joining every ${joinEveryMs / 1000} s (paper Figs. 8 and 9 left)`, [
    {
      title: 'green and yellow packets (1 s means)',
      xLabel: 'time (s)',
      yLabel: 'queueing delay (ms)',
      legend: 'top-left',
      series: [
        { name: 'green', points: series('greenMs'), color: COLOR.green },
        { name: 'yellow', points: series('yellowMs'), color: COLOR.yellow },
      ],
    },
    { title: 'red packets (1 s means)', xLabel: 'time (s)', yLabel: 'queueing delay (ms)', legend: 'top-right', series: [{ name: 'red', points: series('redMs'), color: COLOR.red }] },
  ]);
  const last = summary[summary.length - 1]!;
  const mean = (key: string): number | null => round(summary.reduce((a, s) => a + ((s[key] as number | null) ?? 0), 0) / summary.length, 3);
  return {
    experiment: 'delays',
    parameters: { joinEveryMs, flowsPerJoin: FLOWS_PER_JOIN, flows: flows.length, durationMs: duration, queueLimitsPackets: Object.entries(PAPER_NETWORK.limits).map(([cls, n]) => `${cls} ${n}`).join(', '), routerIntervalMs: PAPER_NETWORK.routerIntervalMs },
    rows,
    summary,
    notes: [
      `Paper: green and yellow average 16 and 25 ms, red up to 400 ms and growing with each join. Lab (queueing only, no propagation): green ${mean('greenMs')} ms, yellow ${mean('yellowMs')} ms on average; red ${summary.map((s) => s.redMs).join(' / ')} ms as flows go ${summary.map((s) => s.flows).join(' / ')}.`,
      `Red waits as long as a full ${redLimit}-packet queue takes to drain at red's service rate (${summary.map((s) => s.fullQueueRedMs).join(' / ')} ms predicted). That rate grows with the number of flows (${summary.map((s) => s.redServedKbps).join(' / ')} kb/s measured; N alpha/beta (1/p_thr - 1) = ${summary.map((s) => s.redServedModelKbps).join(' / ')} at the stationary point), so red delay falls as flows join, unlike the paper's figure.`,
      `Yellow loss stays ${last.yellowLoss} with ${last.flows} flows: red absorbs the joins.`,
    ],
    figure,
    simulation: runner.cost,
  };
}

export const delaysExperiment: Experiment = {
  name: 'delays',
  description: 'queueing delay per color while flows join two at a time (Figs. 8 and 9 left)',
  run,
};
