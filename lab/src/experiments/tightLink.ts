/**
 * Rate controllers across a video-dominated tight link (Jammeh, Fleury,
 * Ghanbari, "Congestion Control across a Video-Dominated Internet Tight
 * Link"): five flows of one controller (TFRC, RAP, fuzzy) over a 1-5 Mb/s
 * drop-tail bottleneck (smoothness, fairness to their own kind), fuzzy and
 * TFRC flows together (fairness to each other), and one flow tracking a
 * bottleneck whose rate steps.
 */
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import type { RateControllerName } from '@pels/shared/rate/registry';
import { renderFigure, type Panel } from '../plot/svg';
import { dumbbellLoss, runDumbbell, sendingRates, type DumbbellFlow, type DumbbellParams, type DumbbellResult } from '../sim/dumbbell';
import { jainIndex } from '../sim/stats';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row, type SimulationCost } from './experiment';

/** Dumb-bell: 100 Mb/s access links of 1 ms, bottleneck 20 ms one way (base RTT 44 ms), 50-packet drop-tail queue, 1000-byte packets. */
const NETWORK = { accessKbps: 100_000, accessDelayMs: 1, bottleneckDelayMs: 20, queuePackets: 50, packetBytes: 1000, routerIntervalMs: 30 } as const;
const BOUNDS = { initialKbps: 200, minKbps: 10, maxKbps: 10_000 };
const CONTROLLERS: readonly RateControllerName[] = ['tfrc', 'rap', 'fuzzy'];
const FLOWS = 5;
/** Sending rate statistics in 100 ms bins, after RAP's start-up (dropped for all three). */
const BIN_MS = 100;
const START_SPREAD_MS = 1000;
/** Tracking: the bottleneck's rate, Mb/s, for one period each. */
const SCHEDULE_MBPS = [2.0, 1.0, 1.5, 0.5, 2.0];
/** Settled: the 1 s mean sending rate within this share of the new capacity. */
const SETTLE_WITHIN = 0.1;

/** Table 1 of the paper: the s.d. (Mb/s) of two of the five flows over 120 s. */
const TABLE1: Readonly<Record<string, readonly [number, number]>> = {
  'tfrc@2': [0.448486, 0.63709],
  'rap@2': [1.35377, 0.97761],
  'fuzzy@2': [0.27979, 0.28815],
  'tfrc@5': [1.483344, 1.47669],
  'rap@5': [2.80038, 2.13319],
  'fuzzy@5': [1.38128, 1.53012],
};

const FORMS = {
  short: { bottlenecks: [2, 5], durationMs: 30_000, warmupMs: 5_000, mixes: [{ fuzzy: 1, tfrc: 1, mbps: [3] }, { fuzzy: 3, tfrc: 2, mbps: [2] }], periodMs: 10_000 },
  normal: {
    bottlenecks: [1, 2, 3, 4, 5],
    durationMs: 60_000,
    warmupMs: 10_000,
    mixes: [{ fuzzy: 1, tfrc: 1, mbps: [3] }, { fuzzy: 3, tfrc: 2, mbps: [1, 2, 3, 4, 5] }, { fuzzy: 3, tfrc: 3, mbps: [1, 3, 5] }],
    periodMs: 30_000,
  },
  full: {
    bottlenecks: [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5],
    durationMs: 120_000,
    warmupMs: 10_000,
    mixes: [{ fuzzy: 1, tfrc: 1, mbps: [3] }, { fuzzy: 3, tfrc: 2, mbps: [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5] }, { fuzzy: 3, tfrc: 3, mbps: [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5] }],
    periodMs: 30_000,
  },
};

function params(flows: DumbbellFlow[], mbps: number, durationMs: number, steps: DumbbellParams['capacitySteps'] = []): DumbbellParams {
  return { ...NETWORK, durationMs, capacityKbps: mbps * 1000, capacitySteps: steps, bounds: BOUNDS, flows, binMs: BIN_MS };
}

function startTimes(n: number, seed: number): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: n }, () => random() * START_SPREAD_MS);
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: readonly number[]): number => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
};

function run({ seed, short, full }: ExperimentOptions): ExperimentResult {
  const form = short ? FORMS.short : full ? FORMS.full : FORMS.normal;
  const cost: SimulationCost = { simulatedSeconds: 0, wallSeconds: 0, events: 0 };
  const simulate = (p: DumbbellParams): DumbbellResult => {
    const r = runDumbbell(p);
    cost.simulatedSeconds += p.durationMs / 1000;
    cost.wallSeconds += r.wallMs / 1000;
    cost.events += r.events;
    return r;
  };
  const { durationMs, warmupMs } = form;
  const rows: Row[] = [];
  const summary: Row[] = [];
  const panels: Panel[] = [];

  // Intra-protocol: five flows of one controller.
  for (const controller of CONTROLLERS) {
    for (const mbps of form.bottlenecks) {
      const starts = startTimes(FLOWS, seed * 100 + mbps * 10);
      const r = simulate(params(starts.map((startMs) => ({ controller, startMs })), mbps, durationMs));
      const perFlow = r.flows.map((f) => sendingRates(f, warmupMs, durationMs).map((k) => k / 1000));
      const means = perFlow.map(mean);
      const sds = perFlow.map(sd);
      perFlow.forEach((_, i) => rows.push({ part: 'intra', controller, bottleneckMbps: mbps, flow: i + 1, meanMbps: round(means[i], 4), sdMbps: round(sds[i], 4) }));
      const share = mbps / FLOWS;
      const paper = TABLE1[`${controller}@${mbps}`];
      summary.push({
        controller,
        bottleneckMbps: mbps,
        shareMbps: share,
        meanMbps: round(mean(means), 4),
        sdMbps: round(mean(sds), 4),
        cov: round(mean(sds) / mean(means), 4),
        jain: round(jainIndex(means), 4),
        minOfShare: round(Math.min(...means) / share, 3),
        maxOfShare: round(Math.max(...means) / share, 3),
        lossPct: round(100 * (dumbbellLoss(r.flows, warmupMs, durationMs) ?? 0), 3),
        paperSdMbps: paper ? round(mean(paper), 4) : null,
      });
      if (mbps === 2) {
        panels.push({
          title: `${controller}: five flows over 2 Mb/s`,
          xLabel: 'time (s)',
          yLabel: 'sending rate (Mb/s)',
          y: [0, 2],
          references: [{ y: share, label: 'C/5' }],
          series: r.flows.map((f, i) => ({ name: `flow ${i + 1}`, points: sendingRates(f, 0, durationMs).map((k, j) => [(j * BIN_MS) / 1000, k / 1000] as [number, number]) })),
        });
      }
    }
  }

  // Inter-protocol: fuzzy and TFRC flows together.
  const mixRows: Row[] = [];
  for (const mix of form.mixes) {
    for (const mbps of mix.mbps) {
      const kinds: RateControllerName[] = [...Array<RateControllerName>(mix.fuzzy).fill('fuzzy'), ...Array<RateControllerName>(mix.tfrc).fill('tfrc')];
      const starts = startTimes(kinds.length, seed * 1000 + mbps * 10 + kinds.length);
      const r = simulate(params(kinds.map((controller, i) => ({ controller, startMs: starts[i]! })), mbps, durationMs));
      const meanOf = (c: RateControllerName): number => mean(r.flows.filter((f) => f.controller === c).map((f) => mean(sendingRates(f, warmupMs, durationMs)) / 1000));
      const ahead = (): number => {
        // Two flows: the share of 1 s bins in which the TFRC flow sent more.
        const [a, b] = [r.flows.find((f) => f.controller === 'tfrc')!, r.flows.find((f) => f.controller === 'fuzzy')!].map((f) => sendingRates(f, warmupMs, durationMs));
        const seconds = Math.floor(a!.length / 10);
        let count = 0;
        for (let s = 0; s < seconds; s++) if (mean(a!.slice(10 * s, 10 * s + 10)) > mean(b!.slice(10 * s, 10 * s + 10))) count++;
        return count / seconds;
      };
      mixRows.push({
        part: 'inter',
        mix: `${mix.fuzzy} fuzzy + ${mix.tfrc} tfrc`,
        bottleneckMbps: mbps,
        equalShareMbps: round(mbps / kinds.length, 4),
        tfrcMeanMbps: round(meanOf('tfrc'), 4),
        fuzzyMeanMbps: round(meanOf('fuzzy'), 4),
        tfrcAheadShare: kinds.length === 2 ? round(ahead(), 3) : null,
        lossPct: round(100 * (dumbbellLoss(r.flows, warmupMs, durationMs) ?? 0), 3),
      });
    }
  }
  rows.push(...mixRows);

  // Tracking: one flow, the bottleneck stepping every period.
  const trackRows: Row[] = [];
  const trackDuration = SCHEDULE_MBPS.length * form.periodMs;
  const steps = SCHEDULE_MBPS.slice(1).map((mbps, i) => ({ atMs: (i + 1) * form.periodMs, kbps: mbps * 1000 }));
  const trackPanel: Panel = { title: 'one flow, bottleneck stepping', xLabel: 'time (s)', yLabel: 'sending rate (Mb/s)', y: [0, 3], series: [] };
  for (const controller of CONTROLLERS) {
    const r = simulate(params([{ controller, startMs: 0 }], SCHEDULE_MBPS[0]!, trackDuration, steps));
    const f = r.flows[0]!;
    trackPanel.series.push({ name: controller, points: sendingRates(f, 0, trackDuration).map((k, j) => [(j * BIN_MS) / 1000, k / 1000] as [number, number]) });
    SCHEDULE_MBPS.forEach((mbps, i) => {
      const from = i * form.periodMs;
      const to = from + form.periodMs;
      const bins = sendingRates(f, from, to).map((k) => k / 1000);
      // Settled once a 1 s mean is within SETTLE_WITHIN of the new rate; the plateau is the second half of the period.
      let settledS: number | undefined;
      for (let j = 0; j + 10 <= bins.length; j++) {
        if (Math.abs(mean(bins.slice(j, j + 10)) / mbps - 1) <= SETTLE_WITHIN) {
          settledS = (j * BIN_MS) / 1000;
          break;
        }
      }
      const plateau = bins.slice(bins.length / 2);
      trackRows.push({
        part: 'tracking',
        controller,
        fromS: from / 1000,
        capacityMbps: mbps,
        settledAfterS: i === 0 ? null : round(settledS, 3),
        plateauMeanMbps: round(mean(plateau), 4),
        plateauSdMbps: round(sd(plateau), 4),
        plateauLossPct: round(100 * (dumbbellLoss([f], (from + to) / 2, to) ?? 0), 3),
      });
    });
  }
  rows.push(...trackRows);
  panels.push(trackPanel);

  const at = (c: string, mbps: number): Row | undefined => summary.find((s) => s.controller === c && s.bottleneckMbps === mbps);
  const ratio = (a: Row | undefined, b: Row | undefined): number | null => (a && b ? round((a.sdMbps as number) / (b.sdMbps as number), 3) : null);
  const covWins = form.bottlenecks.filter((m) => (at('fuzzy', m)!.cov as number) <= (at('tfrc', m)!.cov as number)).length;
  const tfrcAbove = mixRows.filter((m) => (m.tfrcMeanMbps as number) > (m.equalShareMbps as number) && (m.equalShareMbps as number) > (m.fuzzyMeanMbps as number)).length;
  const settle = (c: string): string =>
    trackRows
      .filter((t) => t.controller === c && t.settledAfterS !== null)
      .map((t) => t.settledAfterS)
      .join('/');
  const plateauSd = (c: string): number => mean(trackRows.filter((t) => t.controller === c).map((t) => t.plateauSdMbps as number));
  const pair = mixRows.find((m) => m.tfrcAheadShare !== null);
  const notes = [
    `Table 1 (s.d. of two flows, Mb/s) at 2.0 Mb/s: TFRC 0.543, RAP 1.166, fuzzy 0.284 (fuzzy/TFRC 0.52, RAP/TFRC 2.15); lab (mean s.d. of five flows, 100 ms bins): TFRC ${at('tfrc', 2)?.sdMbps}, RAP ${at('rap', 2)?.sdMbps}, fuzzy ${at('fuzzy', 2)?.sdMbps} (fuzzy/TFRC ${ratio(at('fuzzy', 2), at('tfrc', 2))}, RAP/TFRC ${ratio(at('rap', 2), at('tfrc', 2))}).`,
    `At 5.0 Mb/s the paper has TFRC 1.480, RAP 2.467, fuzzy 1.456 (RAP/TFRC 1.67, fuzzy/TFRC 0.98); lab: TFRC ${at('tfrc', 5)?.sdMbps}, RAP ${at('rap', 5)?.sdMbps}, fuzzy ${at('fuzzy', 5)?.sdMbps} (RAP/TFRC ${ratio(at('rap', 5), at('tfrc', 5))}, fuzzy/TFRC ${ratio(at('fuzzy', 5), at('tfrc', 5))}).`,
    `CoV (mean s.d. / mean rate): fuzzy at or below TFRC at ${covWins} of ${form.bottlenecks.length} bottlenecks (paper, Fig. 4: fuzzy smoother, TFRC with more excursions).`,
    `Fairness to their own kind (paper: all flows cluster around the equal share): lowest Jain ${Math.min(...summary.map((s) => s.jain as number))}; flow means between ${Math.min(...summary.map((s) => s.minOfShare as number))} and ${Math.max(...summary.map((s) => s.maxOfShare as number))} of C/5.`,
    `Fuzzy with TFRC (paper, Fig. 6: TFRC always above the equal share, fuzzy below): TFRC above and fuzzy below the equal share in ${tfrcAbove} of ${mixRows.length} runs.${pair ? ` One of each at ${pair.bottleneckMbps} Mb/s: TFRC ${pair.tfrcMeanMbps}, fuzzy ${pair.fuzzyMeanMbps} Mb/s, TFRC ahead in ${round(100 * (pair.tfrcAheadShare as number), 3)}% of 1 s bins (paper, Fig. 5: similar shares, dominance alternating).` : ''}`,
    `Tracking ${SCHEDULE_MBPS.join(' / ')} Mb/s every ${form.periodMs / 1000} s: settled within ${SETTLE_WITHIN * 100}% after TFRC ${settle('tfrc')} s, RAP ${settle('rap')} s, fuzzy ${settle('fuzzy')} s; mean plateau s.d. TFRC ${round(plateauSd('tfrc'), 3)}, RAP ${round(plateauSd('rap'), 3)}, fuzzy ${round(plateauSd('fuzzy'), 3)} Mb/s (paper, Fig. 1: fuzzy follows smoothly, RAP in steps).`,
  ];
  return {
    experiment: 'tight-link',
    parameters: { ...NETWORK, ...BOUNDS, flows: FLOWS, binMs: BIN_MS, durationMs, warmupMs, bottlenecksMbps: form.bottlenecks, scheduleMbps: SCHEDULE_MBPS, periodMs: form.periodMs, controllers: CONTROLLERS },
    rows,
    summary,
    notes,
    figure: renderFigure('Rate controllers across a tight link: five flows over 2 Mb/s, and one flow tracking a stepping bottleneck', panels),
    simulation: cost,
  };
}

export const tightLinkExperiment: Experiment = {
  name: 'tight-link',
  description: 'TFRC, RAP and fuzzy control over a 1-5 Mb/s tight link: smoothness (CoV, Table 1), fairness within and across controllers, tracking a capacity step',
  run,
};
