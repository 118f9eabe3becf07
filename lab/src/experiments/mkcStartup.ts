import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { MKC_PAPER_GAINS, mkcStationaryKbps } from '@pels/shared/pels/mkc';
import { MKC_STARTUP_DEFAULTS } from '@pels/shared/pels/mkcStartup';
import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import { renderFigure, type Panel } from '../plot/svg';
import type { FeedbackSource } from '../sim/receiver';
import { PAPER_NETWORK, type FlowSpec, type ScenarioResult, type SourceKind } from '../sim/scenario';
import { jainIndex } from '../sim/stats';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row } from './experiment';
import { FGS_CONTROL, lossOf, meanSample, Runner, scenario } from './setup';

/**
 * Frames shaped like the server's default stream (pattern 0,2,1,2 at 30 fps):
 * base layer 360 kb/s, 870 kb/s in all. MKC's floor is the base rate and its
 * ceiling the whole stream plus 25%, as the server sets them.
 */
const FRAMES = { fps: 30, meanBytes: [6000, 3500, 2500] as const };
const BASE_KBPS = (FRAMES.fps / 4) * FRAMES.meanBytes[0] * 8 / 1000;
const FULL_KBPS = BASE_KBPS + ((FRAMES.fps / 4) * FRAMES.meanBytes[1] * 8) / 1000 + ((FRAMES.fps / 2) * FRAMES.meanBytes[2] * 8) / 1000;
const CEILING_HEADROOM = 1.25;
/** The ramp: a flow's first 10 s. */
const RAMP_MS = 10_000;
/** A flow has ramped up once its rate reaches this share of where it settles (or of the whole stream, if less). */
const RAMPED = 0.9;
/**
 * For the frames, the testbed router's settings in the lab's 500-byte
 * packets: green and yellow queues of about 500 ms of the link, a red queue
 * of 12,000 bytes, the router agent's T = 100 ms (the paper's 30 ms makes p
 * from whole-frame bursts too noisy, see gamma-red-loss).
 */
const PACKET_BYTES = PAPER_NETWORK.fgs.packetBytes;
const RED_QUEUE_PACKETS = 12_000 / PACKET_BYTES;
const ROUTER_INTERVAL_MS = 100;
const queuePackets = (kbps: number): number => Math.round((kbps * 500) / 8 / PACKET_BYTES);
const TIMING = { full: { joinMs: 10_000, durationMs: 240_000, seeds: 5 }, short: { joinMs: 5_000, durationMs: 90_000, seeds: 2 } };

interface Case {
  name: string;
  /** The paper's paced FGS source, for which eq. 10 holds exactly, or frames like the server's. */
  source: SourceKind;
  /** The PELS queue's capacity C. */
  pelsKbps: number;
  flows: 1 | 2;
  feedback: FeedbackSource;
  /** Drawn in the figure (the others are in the table only). */
  plot?: true;
}

const CASES: readonly Case[] = [
  { name: 'two flows 1200 kb/s', source: 'fgs', pelsKbps: 1200, flows: 2, feedback: 'router', plot: true },
  { name: 'two flows 1200 kb/s', source: 'fgs', pelsKbps: 1200, flows: 2, feedback: 'rtcp' },
  { name: 'two flows 1200 kb/s', source: 'frames', pelsKbps: 1200, flows: 2, feedback: 'rtcp' },
  { name: 'two flows 1200 kb/s', source: 'frames', pelsKbps: 1200, flows: 2, feedback: 'router' },
  { name: 'one flow 700 kb/s', source: 'frames', pelsKbps: 700, flows: 1, feedback: 'rtcp', plot: true },
  { name: 'one flow 700 kb/s', source: 'frames', pelsKbps: 700, flows: 1, feedback: 'router' },
  { name: 'one flow 3000 kb/s', source: 'frames', pelsKbps: 3000, flows: 1, feedback: 'rtcp', plot: true },
];

function control(source: SourceKind, startup: boolean): ControlLoopParams {
  const bounds = source === 'fgs' ? FGS_CONTROL.mkc : { initialKbps: BASE_KBPS, minKbps: BASE_KBPS, maxKbps: CEILING_HEADROOM * FULL_KBPS };
  return {
    mkc: { ...MKC_PAPER_GAINS, ...bounds, ...(startup ? { startup: MKC_STARTUP_DEFAULTS } : {}) },
    gamma: GAMMA_DEFAULTS,
  };
}

/** Seconds from the flow's start until its rate first reached `kbps`; null if never. */
function secondsTo(r: ScenarioResult, flow: number, kbps: number): number | null {
  const start = r.flows[flow]!.spec.startMs;
  const at = r.flows[flow]!.samples.find((s) => s.rateKbps >= kbps)?.tMs;
  return at === undefined ? null : round((at - start) / 1000, 3);
}

function analyse(c: Case, startup: boolean, seed: number, r: ScenarioResult, durationMs: number): Row {
  const full = c.source === 'fgs' ? FGS_CONTROL.mkc.maxKbps : FULL_KBPS;
  // The last quarter, on whole statistics bins.
  const tail = Math.ceil((durationMs * 0.75) / r.params.binMs) * r.params.binMs;
  const rates = r.flows.map((_, i) => meanSample(r, i, 'rateKbps', tail, durationMs));
  const last = r.flows.length - 1;
  const start = r.flows[last]!.spec.startMs;
  const ramp = r.flows[last]!.samples.filter((s) => s.tMs < start + RAMP_MS);
  const startupEnd = r.flows[last]!.samples.find((s) => !s.startup)?.tMs;
  return {
    case: c.name,
    source: c.source,
    feedback: c.feedback,
    startup: startup ? 'on' : 'off',
    seed,
    // eq. 10 holds for router feedback (p is the share of all bytes); RTCP's p is the enhancement layer's loss.
    modelKbps: c.feedback === 'router' ? round(Math.min(full, mkcStationaryKbps(c.pelsKbps, c.flows, MKC_PAPER_GAINS)), 4) : null,
    f1Kbps: round(rates[0], 4),
    f2Kbps: c.flows === 2 ? round(rates[1], 4) : null,
    jain: c.flows === 2 ? round(jainIndex(rates), 5) : null,
    rampS: secondsTo(r, last, RAMPED * Math.min(rates[last]!, full)),
    startupEndS: startup ? round(startupEnd === undefined ? undefined : (startupEnd - start) / 1000, 3) : null,
    peakKbps: round(Math.max(...ramp.map((s) => s.rateKbps)), 4),
    greenLossRamp: round(lossOf(r, 'green', start, start + RAMP_MS), 3),
    yellowLossRamp: round(lossOf(r, 'yellow', start, start + RAMP_MS), 3),
    redLossRamp: round(lossOf(r, 'red', start, start + RAMP_MS), 3),
    greenLoss: round(lossOf(r, 'green', 0, durationMs), 3),
  };
}

/** Values of one key over the seeds' rows; null when any run had none (e.g. start-up never ended). */
function values(rows: readonly Row[], key: string): number[] | null {
  const xs = rows.map((r) => r[key]);
  return xs.every((x): x is number => typeof x === 'number') ? xs : null;
}

const meanOf = (xs: number[] | null): number | null => (xs ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 4) : null);

/** One summary row per case and start-up setting: means over the seeds, the worst Jain index, the highest peak and green loss. */
function aggregate(runs: readonly Row[]): Row {
  const first = runs[0]!;
  const jains = values(runs, 'jain');
  return {
    case: first.case!,
    source: first.source!,
    feedback: first.feedback!,
    startup: first.startup!,
    modelKbps: first.modelKbps!,
    f1Kbps: meanOf(values(runs, 'f1Kbps')),
    f2Kbps: meanOf(values(runs, 'f2Kbps')),
    jain: meanOf(jains),
    jainMin: jains ? round(Math.min(...jains), 4) : null,
    rampS: meanOf(values(runs, 'rampS')),
    startupEndS: meanOf(values(runs, 'startupEndS')),
    peakKbps: Math.max(...(values(runs, 'peakKbps') ?? [Number.NaN])),
    greenLossRamp: Math.max(...(values(runs, 'greenLossRamp') ?? [Number.NaN])),
    yellowLossRamp: meanOf(values(runs, 'yellowLossRamp')),
    redLossRamp: meanOf(values(runs, 'redLossRamp')),
    greenLoss: Math.max(...(values(runs, 'greenLoss') ?? [Number.NaN])),
  };
}

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const { joinMs, durationMs, seeds } = short ? TIMING.short : TIMING.full;
  const runner = new Runner();
  const rows: Row[] = [];
  const summary: Row[] = [];
  const panels: Panel[] = [];
  for (const c of CASES) {
    const series: Panel['series'][number][] = [];
    for (const startup of [false, true]) {
      const runs: Row[] = [];
      for (let k = 0; k < seeds; k++) {
        const flows: FlowSpec[] = Array.from({ length: c.flows }, (_, i) => ({ startMs: i * joinMs, accessDelayMs: 5, source: c.source, control: control(c.source, startup) }));
        // The Internet queue kept busy above its half, so the PELS queue gets exactly C, as in the paper's setup.
        const r = runner.run(
          scenario(seed + k, durationMs, c.feedback, flows, {
            capacityKbps: 2 * c.pelsKbps,
            crossTrafficKbps: 1.25 * c.pelsKbps,
            // The paper's source in the paper's router (as in mkc-fairness); frames in the testbed's.
            ...(c.source === 'frames'
              ? { frames: FRAMES, routerIntervalMs: ROUTER_INTERVAL_MS, limits: { ...PAPER_NETWORK.limits, green: queuePackets(c.pelsKbps), yellow: queuePackets(c.pelsKbps), red: RED_QUEUE_PACKETS } }
              : {}),
          }),
        );
        runs.push(analyse(c, startup, seed + k, r, durationMs));
        if (k === 0) {
          r.flows.forEach((f, i) => {
            series.push({ name: `F${i + 1} start-up ${startup ? 'on' : 'off'}`, points: f.samples.filter((s) => s.tMs <= 60_000 && s.tMs % 500 === 0).map((s) => [s.tMs / 1000, s.rateKbps] as [number, number]) });
          });
        }
      }
      rows.push(...runs);
      summary.push(aggregate(runs));
    }
    if (c.plot) panels.push({
      title: `${c.name}, ${c.source === 'fgs' ? 'paper source' : 'frames'}, ${c.feedback} feedback`,
      xLabel: 'time (s)',
      yLabel: 'MKC rate (kb/s)',
      y: [0, c.source === 'fgs' ? 1600 : 1200],
      legend: 'bottom-right',
      references: c.source === 'fgs' ? [{ y: mkcStationaryKbps(c.pelsKbps, c.flows, MKC_PAPER_GAINS), label: 'C/N + alpha/beta', side: 'left' }] : [{ y: FULL_KBPS, label: 'whole stream' }],
      series,
    });
  }
  const figure = renderFigure(`MKC start-up: the rate doubles per fresh feedback until the first loss, then eq. 8 (first 60 s of seed ${seed}; stream ${FULL_KBPS} kb/s, base ${BASE_KBPS} kb/s)`, panels);
  const pick = (name: string, source: SourceKind, feedback: FeedbackSource, startup: 'on' | 'off'): Row =>
    summary.find((s) => s.case === name && s.source === source && s.feedback === feedback && s.startup === startup)!;
  const pair = (name: string, source: SourceKind, feedback: FeedbackSource, key: string): string => `${pick(name, source, feedback, 'off')[key]} / ${pick(name, source, feedback, 'on')[key]}`;
  const two = 'two flows 1200 kb/s';
  const slow = 'one flow 700 kb/s';
  const open = 'one flow 3000 kb/s';
  return {
    experiment: 'mkc-startup',
    parameters: { alphaKbps: MKC_PAPER_GAINS.alphaKbps, beta: MKC_PAPER_GAINS.beta, growth: MKC_STARTUP_DEFAULTS.growth, lossThreshold: MKC_STARTUP_DEFAULTS.lossThreshold, baseKbps: BASE_KBPS, fullKbps: FULL_KBPS, reportIntervalMs: PAPER_NETWORK.reportIntervalMs, paperRouterIntervalMs: PAPER_NETWORK.routerIntervalMs, routerIntervalMs: ROUTER_INTERVAL_MS, redQueuePackets: RED_QUEUE_PACKETS, joinMs, durationMs, rampMs: RAMP_MS, seeds },
    rows,
    summary,
    notes: [
      `Values are means over ${seeds} seeds from ${seed}, start-up off / on. Two flows on 1200 kb/s (F2 joins at ${joinMs / 1000} s), paper source, router feedback: ${pair(two, 'fgs', 'router', 'f1Kbps')} and ${pair(two, 'fgs', 'router', 'f2Kbps')} kb/s against eq. 10's ${pick(two, 'fgs', 'router', 'on').modelKbps}, Jain ${pair(two, 'fgs', 'router', 'jain')}.`,
      `With RTCP feedback (the server's receiver-report tracker, polled every 250 ms) Jain is ${pair(two, 'fgs', 'rtcp', 'jain')} for the paper source and ${pair(two, 'frames', 'rtcp', 'jain')} for frames, lowest ${pair(two, 'fgs', 'rtcp', 'jainMin')} and ${pair(two, 'frames', 'rtcp', 'jainMin')}.`,
      `One flow on 700 kb/s, its first ${RAMP_MS / 1000} s: green loss ${pair(slow, 'frames', 'rtcp', 'greenLossRamp')} (RTCP) and ${pair(slow, 'frames', 'router', 'greenLossRamp')} (router); peak rate ${pair(slow, 'frames', 'rtcp', 'peakKbps')} kb/s (RTCP), yellow loss ${pair(slow, 'frames', 'rtcp', 'yellowLossRamp')}, red loss ${pair(slow, 'frames', 'rtcp', 'redLossRamp')}.`,
      `Time to ${RAMPED * 100}% of the settled rate (at most the whole stream): 3000 kb/s ${pair(open, 'frames', 'rtcp', 'rampS')} s and 700 kb/s ${pair(slow, 'frames', 'rtcp', 'rampS')} s with RTCP (a report a second); with router feedback eq. 8 is multiplicative below capacity already (${pair(slow, 'frames', 'router', 'rampS')} s).`,
    ],
    figure,
    simulation: runner.cost,
  };
}

export const mkcStartupExperiment: Experiment = {
  name: 'mkc-startup',
  description: 'MKC start-up on and off: stationary rates and fairness (2 flows, 1200 kb/s), base-layer loss during the ramp (700 kb/s), time to the whole stream',
  run,
};
