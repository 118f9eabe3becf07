/**
 * Layered video under receiver-driven layered multicast (RLM) against TCP
 * (Matrawy, Lambadaris, Huang, "On Layered Video Fairness on IP Networks"):
 * one layered source, receivers behind 250 and 100 kb/s links, a 1 Mb/s
 * shared link, and one FTP transfer (TCP Tahoe) to each receiver starting
 * 100 s after the video. Cases: the measurement window W (12, 4), the layer
 * rate distributions (linear, exponential, hyperbolic), CBR and Pareto
 * on-off (VBR) layers.
 */
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { renderFigure, type Panel } from '../plot/svg';
import { runRlmSession, RLM_NETWORK, type RlmReceiverResult, type RlmSessionParams } from '../sim/rlmSession';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row, type SimulationCost } from './experiment';

interface Case {
  id: string;
  title: string;
  layerKbps: number[];
  receiverKbps: [number, number];
  windowPackets: number;
  /** FTP transfer, MB of 1000-byte packets. */
  fileMb: number;
  source: 'cbr' | 'vbr';
  /** What the paper's figures show for this case. */
  paper: [string, string];
}

const CASES: readonly Case[] = [
  { id: 'E1a', title: 'exponential 32-256, W = 12', layerKbps: [32, 64, 128, 256], receiverKbps: [250, 100], windowPackets: 12, fileMb: 5, source: 'cbr', paper: ['3 layers; keeps layer 3; TCP not before 1500 s; window peaks near 10', '2 layers (4 kb/s left); drops layer 2 after 1500 s for ~500 s; TCP ends then'] },
  { id: 'E1b', title: 'exponential 32-256, W = 4', layerKbps: [32, 64, 128, 256], receiverKbps: [250, 100], windowPackets: 4, fileMb: 5, source: 'cbr', paper: ['drops layer 3 after 1000 s; TCP ends earlier than W = 12', 'drops sooner than W = 12; TCP ends earlier'] },
  { id: 'E2', title: 'CBR linear 10 x 25', layerKbps: Array<number>(10).fill(25), receiverKbps: [250, 100], windowPackets: 4, fileMb: 10, source: 'cbr', paper: ['stable video, small steps; unfair to TCP', 'unfair to TCP; TCP takes longest'] },
  { id: 'E3', title: 'CBR exponential 16-128', layerKbps: [16, 32, 64, 128], receiverKbps: [250, 100], windowPackets: 4, fileMb: 10, source: 'cbr', paper: ['TCP gets the biggest share; large oscillations', 'TCP gets the biggest share; large oscillations'] },
  { id: 'E4', title: 'CBR hyperbolic 100, 50, 50, 25, 25, 25', layerKbps: [100, 50, 50, 25, 25, 25], receiverKbps: [250, 150], windowPackets: 4, fileMb: 10, source: 'cbr', paper: ['very stable video, low TCP throughput, link full', 'room for 2 layers; whole session dropped ~400 s; TCP gets the link then'] },
  { id: 'E5', title: 'VBR linear 10 x 50 on', layerKbps: Array<number>(10).fill(50), receiverKbps: [250, 100], windowPackets: 4, fileMb: 10, source: 'vbr', paper: ['like E2, less stable, lower utilisation', 'like E2, less stable, lower utilisation'] },
  { id: 'E6', title: 'VBR exponential 32-1024 on', layerKbps: [32, 64, 128, 256, 512, 1024], receiverKbps: [250, 100], windowPackets: 4, fileMb: 10, source: 'vbr', paper: ['like E3, less stable, lower utilisation', 'like E3, less stable, lower utilisation'] },
  { id: 'E7', title: 'VBR hyperbolic 100, 75, 75, 50, 50, 50 on', layerKbps: [100, 75, 75, 50, 50, 50], receiverKbps: [250, 150], windowPackets: 4, fileMb: 10, source: 'vbr', paper: ['like E4, less stable, lower utilisation', 'like E4, less stable, lower utilisation'] },
];

const TCP_START_S = 100;
const FORMS = {
  short: { cases: ['E1a', 'E1b'], seeds: 1, durationS: 2500 },
  normal: { cases: CASES.map((c) => c.id), seeds: 3, durationS: 6000 },
  full: { cases: CASES.map((c) => c.id), seeds: 5, durationS: 6000 },
};

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sd = (xs: readonly number[]): number => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));

/** One receiver's figures in one run. */
function receiverFigures(x: RlmReceiverResult, durationS: number): Row {
  const secs = x.seconds;
  const before = secs[TCP_START_S - 1]!.layers;
  const firstDrop = secs.findIndex((s, k) => k >= TCP_START_S && s.layers < before);
  const tcpEnd = x.tcpCompletionS === null ? durationS : TCP_START_S + x.tcpCompletionS;
  const whileTcp = secs.slice(TCP_START_S, Math.max(TCP_START_S + 1, Math.floor(tcpEnd)));
  let changes = 0;
  for (let k = 1; k < secs.length; k++) if (secs[k]!.layers !== secs[k - 1]!.layers) changes++;
  let zero = 0;
  let longestZero = 0;
  for (const s of secs) {
    zero = s.layers === 0 ? zero + 1 : 0;
    longestZero = Math.max(longestZero, zero);
  }
  const atLevel = whileTcp.filter((s) => s.layers === before);
  return {
    levelBeforeTcp: before,
    tcpCompletionS: x.tcpCompletionS,
    firstDropAfterTcpS: firstDrop < 0 ? null : firstDrop - TCP_START_S,
    tcpKbpsAtThatLevel: atLevel.length ? mean(atLevel.map((s) => s.tcpKbps)) : null,
    peakWindow: Math.max(...secs.map((s) => s.tcpCwnd)),
    layerChangesPer1000s: (1000 * changes) / durationS,
    rlmKbpsSd: sd(whileTcp.map((s) => s.rlmKbps)),
    meanUtilisation: mean(secs.slice(TCP_START_S).map((s) => s.utilisation)),
    longestZeroLayersS: longestZero,
    tcpKbpsAtZero: longestZero ? mean(secs.filter((s) => s.layers === 0).map((s) => s.tcpKbps)) : null,
  };
}

/** Medians over the seeds of each numeric figure; null stays null only if every run had null. */
function medians(rows: readonly Row[]): Row {
  const out: Row = {};
  for (const key of Object.keys(rows[0]!)) {
    const xs = rows.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    out[key] = xs.length ? round(median(xs), 4) : null;
  }
  return out;
}

function run({ seed, short, full }: ExperimentOptions): ExperimentResult {
  const form = short ? FORMS.short : full ? FORMS.full : FORMS.normal;
  const cost: SimulationCost = { simulatedSeconds: 0, wallSeconds: 0, events: 0 };
  const rows: Row[] = [];
  const summary: Row[] = [];
  const panels: Panel[] = [];
  for (const c of CASES.filter((x) => form.cases.includes(x.id))) {
    const perRun: Row[][] = [[], []];
    for (let k = 0; k < form.seeds; k++) {
      const params: RlmSessionParams = {
        layerKbps: c.layerKbps,
        source: c.source,
        receiverKbps: c.receiverKbps,
        windowPackets: c.windowPackets,
        tcpPackets: (c.fileMb * 1e6) / RLM_NETWORK.packetBytes,
        tcpStartMs: TCP_START_S * 1000,
        durationMs: form.durationS * 1000,
        // E1a and E1b draw the same numbers: they differ only in W, so the comparison is paired.
        random: mulberry32(seed * 7919 + k * 104_729 + c.id.charCodeAt(1) * 31),
      };
      const t0 = performance.now();
      const r = runRlmSession(params);
      cost.simulatedSeconds += form.durationS;
      cost.wallSeconds += (performance.now() - t0) / 1000;
      cost.events += r.events;
      r.receivers.forEach((x, i) => {
        const f = receiverFigures(x, form.durationS);
        perRun[i]!.push(f);
        rows.push({ case: c.id, receiver: `R${i + 1}`, run: k + 1, ...Object.fromEntries(Object.entries(f).map(([key, v]) => [key, typeof v === 'number' ? round(v, 4) : v])) });
      });
      if (k === 0 && (c.id === 'E1a' || c.id === 'E1b' || c.id === 'E4')) {
        r.receivers.forEach((x, i) => {
          const step = 10;
          const pts = (f: (s: RlmReceiverResult['seconds'][number]) => number): Array<[number, number]> => {
            const out: Array<[number, number]> = [];
            for (let s = 0; s + step <= x.seconds.length; s += step) out.push([s, mean(x.seconds.slice(s, s + step).map(f))]);
            return out;
          };
          panels.push({
            title: `${c.id} (${c.title}), R${i + 1} at ${c.receiverKbps[i]} kb/s: layers and throughput`,
            xLabel: 'time (s)',
            yLabel: 'kb/s (10 s means); layers x 25',
            y: [0, c.receiverKbps[i]! * 1.1],
            series: [
              { name: 'layers x 25', points: pts((s) => s.layers * 25) },
              { name: 'RLM kb/s', points: pts((s) => s.rlmKbps) },
              { name: 'TCP kb/s', points: pts((s) => s.tcpKbps) },
            ],
            legend: 'top-right',
          });
        });
      }
    }
    perRun.forEach((runs, i) => summary.push({ case: c.id, receiver: `R${i + 1}`, linkKbps: c.receiverKbps[i]!, W: c.windowPackets, fileMb: c.fileMb, ...medians(runs), paper: c.paper[i]! }));
  }

  const at = (id: string, r: string): Row | undefined => summary.find((s) => s.case === id && s.receiver === r);
  const v = (id: string, r: string, key: string): number | null => (at(id, r)?.[key] as number | null | undefined) ?? null;
  const notes: string[] = [
    `Before TCP starts R1 holds ${v('E1a', 'R1', 'levelBeforeTcp')} layers and R2 ${v('E1a', 'R2', 'levelBeforeTcp')} (paper, Figs. 2-3: 3 and 2; the fluid fit is 224 of 250 and 96 of 100 kb/s).`,
    `E1a (W = 12): TCP to R1 completes ${v('E1a', 'R1', 'tcpCompletionS')} s after its start (paper: not before 1500 s; what the layers leave, 26 kb/s, needs 1538 s), with a peak window of ${v('E1a', 'R1', 'peakWindow')} (paper: oscillating up to 10; the receiver window is 20). TCP to R2 gets ${v('E1a', 'R2', 'tcpKbpsAtThatLevel')} kb/s while R2 holds 2 layers (paper: 4 kb/s left) and completes after ${v('E1a', 'R2', 'tcpCompletionS')} s; R2's first drop ${v('E1a', 'R2', 'firstDropAfterTcpS')} s after TCP starts (paper: after 1500 s).`,
    `E1b (W = 4) against E1a (W = 12), medians: TCP completion R1 ${v('E1b', 'R1', 'tcpCompletionS')} vs ${v('E1a', 'R1', 'tcpCompletionS')} s, R2 ${v('E1b', 'R2', 'tcpCompletionS')} vs ${v('E1a', 'R2', 'tcpCompletionS')} s; first drop after TCP starts R1 ${v('E1b', 'R1', 'firstDropAfterTcpS')} vs ${v('E1a', 'R1', 'firstDropAfterTcpS')} s, R2 ${v('E1b', 'R2', 'firstDropAfterTcpS')} vs ${v('E1a', 'R2', 'firstDropAfterTcpS')} s (paper: the smaller window drops sooner and lets TCP finish earlier; R1 about 1000 s).`,
  ];
  if (!short) {
    notes.push(
      `Layer distributions, R1 (CBR, W = 4, 10 MB): TCP completes after linear ${v('E2', 'R1', 'tcpCompletionS')} s, exponential ${v('E3', 'R1', 'tcpCompletionS')} s, hyperbolic ${v('E4', 'R1', 'tcpCompletionS')} s (null: not within the run); RLM throughput s.d. while TCP runs: linear ${v('E2', 'R1', 'rlmKbpsSd')}, exponential ${v('E3', 'R1', 'rlmKbpsSd')}, hyperbolic ${v('E4', 'R1', 'rlmKbpsSd')} kb/s (paper: exponential gives TCP the biggest share with the largest oscillations; linear the most stable and unfair).`,
      `E4, R2 at 150 kb/s (base layer 100): longest stretch at zero layers per run ${rows.filter((r) => r.case === 'E4' && r.receiver === 'R2').map((r) => r.longestZeroLayersS).join(', ')} s, TCP at ${rows.filter((r) => r.case === 'E4' && r.receiver === 'R2').map((r) => r.tcpKbpsAtZero ?? '-').join(', ')} kb/s meanwhile (paper: the whole session dropped for about 400 s, TCP got the link).`,
      `VBR against CBR (layer changes per 1000 s; mean utilisation of the receiver link after TCP starts), R1: linear ${v('E5', 'R1', 'layerChangesPer1000s')} vs ${v('E2', 'R1', 'layerChangesPer1000s')}, ${v('E5', 'R1', 'meanUtilisation')} vs ${v('E2', 'R1', 'meanUtilisation')}; exponential ${v('E6', 'R1', 'layerChangesPer1000s')} vs ${v('E3', 'R1', 'layerChangesPer1000s')}, ${v('E6', 'R1', 'meanUtilisation')} vs ${v('E3', 'R1', 'meanUtilisation')}; hyperbolic ${v('E7', 'R1', 'layerChangesPer1000s')} vs ${v('E4', 'R1', 'layerChangesPer1000s')}, ${v('E7', 'R1', 'meanUtilisation')} vs ${v('E4', 'R1', 'meanUtilisation')} (paper: VBR less stable, lower utilisation, fairer to TCP).`,
    );
  }
  return {
    experiment: 'rlm-tcp',
    parameters: { ...RLM_NETWORK, tcpStartS: TCP_START_S, durationS: form.durationS, seeds: form.seeds, cases: form.cases, lossThreshold: 0.25 },
    rows,
    summary,
    notes,
    figure: renderFigure('RLM against TCP: subscribed layers, RLM and TCP throughput per receiver (first seed)', panels),
    simulation: cost,
  };
}

export const rlmTcpExperiment: Experiment = {
  name: 'rlm-tcp',
  description: 'receiver-driven layered multicast (RLM) against TCP Tahoe: 1 Mb/s, receivers at 250 and 100 kb/s, W = 12 and 4, linear/exponential/hyperbolic layers, CBR and VBR',
  run,
};
