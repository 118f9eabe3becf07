/**
 * Loss-resilience benchmark: one viewer with random loss on its link, side by
 * side over links and modes. Links: `open` (2000 kb/s, above the stream's
 * rate, behind the mode's own router), and a bottleneck (1200 kb/s by
 * default) behind the PELS router (`pels`) or one drop-tail FIFO (`fifo`).
 * Modes: PELS (green retransmitted), best effort (nothing retransmitted),
 * nack (every stream retransmitted, one DSCP) and `stock`: nack on the shared
 * fan-out (FANOUT=shared), every layer forwarded to every viewer, as a stock
 * SFU with NACK does. One testbed run per cell and repeat.
 */
import { FLOW_MODES } from '@pels/shared/protocol/api';
import { queueDropRate, type BottleneckKind } from '../net/pelsBottleneck';
import { round, type CongestionSummary } from '../testbed/metrics';
import { runTestbed, TESTBED_DEFAULTS, type TestbedOptions, type ViewerResult } from '../testbed/testbed';

export const OPEN_LINK_KBPS = 2000;

export const LOSS_LINKS = ['open', 'pels', 'fifo'] as const;
export type LossLink = (typeof LOSS_LINKS)[number];

export const LOSS_MODES = [...FLOW_MODES, 'stock'] as const;
export type LossMode = (typeof LOSS_MODES)[number];

export interface LossOptions {
  lossPct: number[];
  links: LossLink[];
  modes: LossMode[];
  seconds: number;
  /** Runs of each cell. */
  runs: number;
  /** The `pels` and `fifo` links' rate. */
  bottleneckKbps: number;
}

export const LOSS_DEFAULTS: LossOptions = { lossPct: [0, 5, 10, 20], links: [...LOSS_LINKS], modes: ['pels', 'nack', 'best-effort', 'stock'], seconds: 45, runs: 1, bottleneckKbps: 1200 };

/** The loss benchmark's flags, as parseArgs gives them (strings, undefined when absent). */
export interface LossFlags {
  loss?: string;
  links?: string;
  modes?: string;
  seconds?: string;
  runs?: string;
  'bottleneck-kbps'?: string;
}

/** The flags checked, defaults filled in; a RangeError names the bad one. */
export function parseLossFlags(f: LossFlags): LossOptions {
  const d = LOSS_DEFAULTS;
  return {
    lossPct: f.loss === undefined ? d.lossPct : f.loss.split(',').map((x) => numberIn('loss', x, 0, 50)),
    links: f.links === undefined ? d.links : namesIn('links', f.links, LOSS_LINKS),
    modes: f.modes === undefined ? d.modes : namesIn('modes', f.modes, LOSS_MODES),
    seconds: f.seconds === undefined ? d.seconds : numberIn('seconds', f.seconds, 10, 3600, true),
    runs: f.runs === undefined ? d.runs : numberIn('runs', f.runs, 1, 20, true),
    bottleneckKbps: f['bottleneck-kbps'] === undefined ? d.bottleneckKbps : numberIn('bottleneck-kbps', f['bottleneck-kbps'], 64, 1_000_000),
  };
}

function numberIn(flag: string, raw: string, min: number, max: number, integer = false): number {
  const v = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new RangeError(`--${flag}: each value must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]; got "${raw}"`);
  }
  return v;
}

function namesIn<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  return raw.split(',').map((x) => {
    const name = allowed.find((a) => a === x.trim());
    if (!name) throw new RangeError(`--${flag}: each value must be one of ${allowed.join(', ')}; got "${x}"`);
    return name;
  });
}

/** One cell's testbed run: the link's rate and router, the mode's sender (stock: nack on the shared fan-out). */
export function cellOptions(link: LossLink, mode: LossMode, lossPct: number, o: Pick<LossOptions, 'seconds' | 'bottleneckKbps'>): TestbedOptions {
  return {
    ...TESTBED_DEFAULTS,
    viewers: 1,
    seconds: o.seconds,
    lossPct,
    capacityKbps: link === 'open' ? OPEN_LINK_KBPS : o.bottleneckKbps,
    // The open link keeps the mode's own router: nothing queues there.
    ...(link === 'open' ? {} : { router: link }),
    mode: mode === 'stock' ? 'nack' : mode,
    ...(mode === 'stock' ? { serverEnv: { FANOUT: 'shared' } } : {}),
  };
}

export interface LossRow {
  lossPct: number;
  link: LossLink;
  capacityKbps: number;
  /** The router that ran, as the testbed reports it. */
  router: BottleneckKind | null;
  mode: LossMode;
  /** 1-based repeat of the cell. */
  run: number;
  /** Second-half averages, as the testbed reports them. */
  fps: number | null;
  psnrMean: number | null;
  psnrP5: number | null;
  scoredShare: number | null;
  freezesPerMinute: number | null;
  /** Retransmitted bytes as a share of the bytes sent, percent. */
  rtxOverheadPct: number | null;
  pliSent: number | null;
  /** From page load, and from the viewer's join (see ViewerResult). */
  firstFrameMs: number | null;
  joinToFirstFrameMs: number | null;
  timeToFullRateMs: number | null;
  /** The rendition the server sent longest (0: full size). */
  rendition: number | null;
  /** The controller's rate and the rate sent, kb/s. */
  rateKbps: number | null;
  sentKbps: number | null;
  /** The controller's reading of the loss (second half). */
  congestion: CongestionSummary | null;
  /** The router's real congestion drops over the second half: queue drops / packets offered to the queues (random loss left out). */
  queueDropRate: number | null;
  /** The machine's 1-minute load average before and after the run. */
  loadAverage: [number, number];
  errors: string[];
}

/** The index of the largest time, null when nothing was timed. */
export function mostWatched(timeMs: readonly number[]): number | null {
  let best: number | null = null;
  for (let i = 0; i < timeMs.length; i++) {
    if (timeMs[i]! > (best === null ? 0 : timeMs[best]!)) best = i;
  }
  return best;
}

type Cell = Pick<LossRow, 'lossPct' | 'link' | 'capacityKbps' | 'mode' | 'run' | 'loadAverage'>;

function row(cell: Cell, seconds: number, result: Awaited<ReturnType<typeof runTestbed>>['result']): LossRow {
  const v: ViewerResult | undefined = result.viewers[0];
  return {
    ...cell,
    router: result.router?.mode ?? null,
    fps: v?.fps ?? null,
    psnrMean: v?.psnr?.mean ?? null,
    psnrP5: v?.psnr?.p5 ?? null,
    scoredShare: v?.psnr?.scoredShare ?? null,
    // The testbed counts freezes over the whole run.
    freezesPerMinute: v?.freezes === undefined ? null : round((v.freezes * 60) / seconds, 1),
    rtxOverheadPct: v?.rtx?.overheadPct ?? null,
    pliSent: v?.pliSent ?? null,
    firstFrameMs: v?.firstFrameMs ?? null,
    joinToFirstFrameMs: v?.joinToFirstFrameMs ?? null,
    timeToFullRateMs: v?.timeToFullRateMs ?? null,
    rendition: v?.rendition ? mostWatched(v.rendition.timeMs) : null,
    rateKbps: v?.rateKbps ?? null,
    sentKbps: v?.sentKbps ?? null,
    congestion: v?.congestion ?? null,
    queueDropRate: result.router ? round(queueDropRate(result.router.secondHalf), 4) : null,
    errors: v?.errors ?? ['no viewer in the result'],
  };
}

export async function lossResilience(o: LossOptions, progress: (m: string) => void, loadAverage: () => number): Promise<LossRow[]> {
  const rows: LossRow[] = [];
  // Each repeat goes round every cell, so a drift in the machine's load spreads over the cells.
  for (let run = 1; run <= o.runs; run++) {
    for (const lossPct of o.lossPct) {
      for (const link of o.links) {
        for (const mode of o.modes) {
          const t = cellOptions(link, mode, lossPct, o);
          progress(`${mode}, ${lossPct}% random loss, ${link} link (${t.capacityKbps} kb/s), ${o.seconds} s${o.runs > 1 ? `, run ${run} of ${o.runs}` : ''}`);
          const before = round(loadAverage(), 2)!;
          const { result } = await runTestbed(t, (m) => {
            if (m.startsWith('server: ')) progress(m);
          });
          const cell = { lossPct, link, capacityKbps: t.capacityKbps!, mode, run, loadAverage: [before, round(loadAverage(), 2)!] as [number, number] };
          rows.push(row(cell, o.seconds, result));
        }
      }
    }
  }
  return rows;
}

const num = (x: number | null, digits = 1): string => (x === null ? '-' : x.toFixed(digits));
const pct = (x: number | null, digits = 1): string => (x === null ? '-' : `${(x * 100).toFixed(digits)}%`);

/** The table as printed (and pasted into docs/benchmarks.md). */
export function formatLossTable(rows: readonly LossRow[]): string[] {
  const lines = [
    '| loss | link | router | mode | run | fps | PSNR mean (dB) | PSNR p5 (dB) | scored | freezes/min | RTX overhead | PLIs | join to first frame (ms) | to 90% rate (ms) | rendition | rate (kb/s) | sent (kb/s) | est. congestion | est. wire loss | diagnosis clear/wire/congestion | queue drops | load avg before, after |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const c = r.congestion;
    const diagnosis = c ? `${pct(c.diagnosis.clear, 0)} / ${pct(c.diagnosis['wire-loss'], 0)} / ${pct(c.diagnosis.congestion, 0)}` : '-';
    const cells = [
      `${r.lossPct}%`,
      `${r.link} ${r.capacityKbps}`,
      r.router ?? '-',
      r.mode,
      String(r.run),
      num(r.fps),
      num(r.psnrMean),
      num(r.psnrP5),
      pct(r.scoredShare, 0),
      num(r.freezesPerMinute),
      r.rtxOverheadPct === null ? '-' : `${r.rtxOverheadPct.toFixed(1)}%`,
      String(r.pliSent ?? '-'),
      num(r.joinToFirstFrameMs, 0),
      r.timeToFullRateMs === null ? 'never' : r.timeToFullRateMs.toFixed(0),
      String(r.rendition ?? '-'),
      num(r.rateKbps, 0),
      num(r.sentKbps, 0),
      pct(c?.congestion ?? null),
      pct(c?.wireLoss ?? null),
      diagnosis,
      pct(r.queueDropRate),
      r.loadAverage.join(', '),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}
