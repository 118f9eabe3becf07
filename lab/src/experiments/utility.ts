import { GAMMA_DEFAULTS } from '@pels/shared/pels/gammaController';
import { bestEffortUtility, expectedUsefulPackets, pelsUtilityBound } from '@pels/shared/pels/utility';
import { renderFigure } from '../plot/svg';
import { round, type Experiment, type ExperimentOptions, type ExperimentResult, type Row } from './experiment';
import { simulateFrames } from './monteCarlo';

/** Table 1 of the paper: H = 100 and its simulated useful packets per frame. */
const TABLE1: ReadonlyArray<{ p: number; paper: number }> = [
  { p: 0.0001, paper: 99.49 },
  { p: 0.01, paper: 62.78 },
  { p: 0.1, paper: 8.99 },
];
/** Fig. 2: p = 0.1 over frame sizes H. */
const FIG2_P = 0.1;
const FIG2_H = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** Packets simulated per (H, p) point: enough for standard errors well below the differences that matter. */
const PACKETS = { full: 4_000_000, short: 200_000 };

/** One (H, p) point; a type alias (not an interface) so it is a Row. */
type Point = {
  figure: 'table1' | 'fig2';
  H: number;
  p: number;
  model: number | null;
  monteCarlo: number | null;
  monteCarloSe: number | null;
  zScore: number | null;
  paperSimulation: number | null;
  optimal: number | null;
  utilityBestEffort: number | null;
  utilityMonteCarlo: number | null;
  utilityPelsBound: number | null;
};

function point(figure: Point['figure'], h: number, p: number, paper: number | null, packets: number, seed: number): Point {
  const mc = simulateFrames(h, p, Math.max(100, Math.round(packets / h)), seed);
  const model = expectedUsefulPackets(p, h);
  return {
    figure,
    H: h,
    p,
    model: round(model, 6),
    monteCarlo: round(mc.useful, 6),
    monteCarloSe: round(mc.usefulSe, 3),
    zScore: round(mc.usefulSe > 0 ? (mc.useful - model) / mc.usefulSe : 0, 3),
    paperSimulation: paper,
    optimal: round(h * (1 - p), 6),
    utilityBestEffort: round(bestEffortUtility(p, h), 6),
    utilityMonteCarlo: round(mc.utility, 6),
    utilityPelsBound: round(pelsUtilityBound(p, GAMMA_DEFAULTS.pThr), 6),
  };
}

function run({ seed, short }: ExperimentOptions): ExperimentResult {
  const packets = short ? PACKETS.short : PACKETS.full;
  // Each point its own stream of random numbers, so adding a point changes no other.
  const rows: Point[] = [
    ...TABLE1.map(({ p, paper }, i) => point('table1', 100, p, paper, packets, seed * 1009 + i)),
    ...FIG2_H.map((h, i) => point('fig2', h, FIG2_P, null, packets, seed * 1009 + 100 + i)),
  ];
  const fig2 = rows.filter((r) => r.figure === 'fig2');
  const xy = (key: 'model' | 'monteCarlo' | 'optimal' | 'utilityBestEffort' | 'utilityMonteCarlo' | 'utilityPelsBound'): Array<[number, number]> =>
    fig2.map((r) => [r.H, r[key] ?? Number.NaN]);
  const figure = renderFigure(`Useful FGS packets and utility under Bernoulli loss p = ${FIG2_P} (paper Fig. 2)`, [
    {
      title: 'Useful packets per frame',
      xLabel: 'frame size H (packets)',
      yLabel: 'useful packets per frame',
      xLog: true,
      yLog: true,
      series: [
        { name: 'best effort, model (eq. 2)', points: xy('model') },
        { name: 'best effort, Monte Carlo', points: xy('monteCarlo'), style: 'dots' },
        { name: 'optimal H(1-p)', points: xy('optimal'), dashed: true },
      ],
    },
    {
      title: 'Utility U of received FGS packets',
      xLabel: 'frame size H (packets)',
      yLabel: 'utility U',
      xLog: true,
      y: [0, 1.05],
      legend: 'bottom-left',
      series: [
        { name: 'best effort (eq. 3)', points: xy('utilityBestEffort') },
        { name: 'Monte Carlo', points: xy('utilityMonteCarlo'), style: 'dots' },
        { name: 'PELS bound (eq. 6)', points: xy('utilityPelsBound'), dashed: true },
      ],
    },
  ]);
  const summary: Row[] = rows
    .filter((r) => r.figure === 'table1')
    .map((r) => ({ H: r.H, p: r.p, paper: r.paperSimulation, model: r.model, monteCarlo: r.monteCarlo, se: r.monteCarloSe, z: r.zScore, U_bestEffort: r.utilityBestEffort, U_pelsBound: r.utilityPelsBound }));
  const worstZ = Math.max(...rows.map((r) => Math.abs(r.zScore ?? 0)));
  const at = (p: number): Point => rows.find((r) => r.figure === 'table1' && r.p === p)!;
  return {
    experiment: 'utility',
    parameters: { pThr: GAMMA_DEFAULTS.pThr, packetsPerPoint: packets, fig2P: FIG2_P, fig2H: FIG2_H },
    rows,
    summary,
    notes: [
      `Table 1 (H=100): paper simulation 99.49 / 62.78 / 8.99 useful packets; model ${at(0.0001).model} / ${at(0.01).model} / ${at(0.1).model}; Monte Carlo ${at(0.0001).monteCarlo} / ${at(0.01).monteCarlo} / ${at(0.1).monteCarlo}.`,
      `Monte Carlo vs model over all ${rows.length} points: largest |z| = ${round(worstZ, 3)} standard errors.`,
      `Utility at H=100, p=0.1: best effort ${at(0.1).utilityBestEffort} (paper: 0.1); PELS bound ${at(0.1).utilityPelsBound} (paper: at least 0.96), ${at(0.01).utilityPelsBound} at p=0.01 (paper: 0.996).`,
      `Fig. 2: useful packets saturate at (1-p)/p = ${round((1 - FIG2_P) / FIG2_P, 3)} as H grows; utility falls as 1/H.`,
    ],
    figure,
  };
}

export const utilityExperiment: Experiment = {
  name: 'utility',
  description: 'useful packets per frame and utility under Bernoulli loss: model (eqs. 2, 3) vs Monte Carlo, PELS bound (eq. 6)',
  run,
};
