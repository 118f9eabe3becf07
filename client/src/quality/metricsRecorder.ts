/**
 * The session's per-second metrics, for export as CSV or JSON. Displayed periods
 * count in the second they were shown (their scores arrive up to a few seconds
 * later); the player and server state is what it was when the second ended. Pure.
 */
import type { ViewerStateUpdate } from '@pels/shared/protocol/signaling';
import type { PlayerStats } from '../player/stats';
import type { QualitySample } from './qualityTracker';

export interface MetricsRow {
  /** Seconds since the session started. */
  t: number;
  /** Y-PSNR of the periods displayed in this second, dB. */
  psnrMean: number | null;
  psnrMin: number | null;
  /** Frame periods displayed, and how many of them repeated an older frame. */
  periods: number;
  repeats: number;
  fps: number;
  fpsTid0: number;
  fpsTid1: number;
  fpsTid2: number;
  framesDecoded: number;
  freezes: number;
  checksumsCompared: number;
  checksumMismatches: number;
  /** From the server: MKC rate, sent rate (kb/s), gamma, the loss p that drove them, per-color loss of the last report. */
  rateKbps: number | null;
  sentKbps: number | null;
  gamma: number | null;
  lossP: number | null;
  lossGreen: number | null;
  lossYellow: number | null;
  lossRed: number | null;
  rttMs: number | null;
  /** Useful share of received enhancement bytes over the last few seconds. */
  utility: number | null;
}

export interface SecondState {
  stats: PlayerStats;
  viewerState: ViewerStateUpdate | undefined;
  utility: number | null;
}

interface Second {
  sum: number;
  scored: number;
  min: number | null;
  periods: number;
  repeats: number;
  state: SecondState | undefined;
}

/** A day of seconds at most. */
const MAX_SECONDS = 86_400;

export class MetricsRecorder {
  private readonly seconds = new Map<number, Second>();

  constructor(private readonly startMs: number) {}

  samples(samples: readonly QualitySample[]): void {
    for (const s of samples) {
      const sec = this.second(Math.floor((s.t - this.startMs) / 1000));
      if (!sec) continue;
      sec.periods++;
      if (s.shown !== s.index) sec.repeats++;
      if (s.psnr === null) continue;
      sec.sum += s.psnr;
      sec.scored++;
      sec.min = sec.min === null ? s.psnr : Math.min(sec.min, s.psnr);
    }
  }

  /** The state at the end of the second that `nowMs` ends. */
  endOfSecond(nowMs: number, state: SecondState): void {
    const sec = this.second(Math.floor((nowMs - this.startMs) / 1000) - 1);
    if (sec) sec.state = state;
  }

  rows(): MetricsRow[] {
    const out: MetricsRow[] = [];
    for (const t of [...this.seconds.keys()].sort((a, b) => a - b)) {
      const sec = this.seconds.get(t)!;
      if (sec.state) out.push(row(t, sec, sec.state));
    }
    return out;
  }

  private second(t: number): Second | undefined {
    if (t < 0) return undefined;
    let sec = this.seconds.get(t);
    if (!sec) {
      sec = { sum: 0, scored: 0, min: null, periods: 0, repeats: 0, state: undefined };
      this.seconds.set(t, sec);
      for (const k of this.seconds.keys()) {
        if (this.seconds.size <= MAX_SECONDS) break;
        this.seconds.delete(k);
      }
    }
    return sec;
  }
}

function row(t: number, sec: Second, { stats, viewerState: v, utility }: SecondState): MetricsRow {
  return {
    t,
    psnrMean: sec.scored ? sec.sum / sec.scored : null,
    psnrMin: sec.min,
    periods: sec.periods,
    repeats: sec.repeats,
    fps: stats.fps.total,
    fpsTid0: stats.fps.tid0,
    fpsTid1: stats.fps.tid1,
    fpsTid2: stats.fps.tid2,
    framesDecoded: stats.framesDecoded.total,
    freezes: stats.freezes,
    checksumsCompared: stats.checksumsCompared,
    checksumMismatches: stats.checksumMismatches,
    rateKbps: v?.rateKbps ?? null,
    sentKbps: v?.sentKbps ?? null,
    gamma: v?.gamma ?? null,
    lossP: v?.lossP ?? null,
    lossGreen: v?.perColor.green.recentLoss ?? null,
    lossYellow: v?.perColor.yellow.recentLoss ?? null,
    lossRed: v?.perColor.red.recentLoss ?? null,
    rttMs: v?.rttMs ?? null,
    utility,
  };
}

const COLUMNS: (keyof MetricsRow)[] = [
  't', 'psnrMean', 'psnrMin', 'periods', 'repeats', 'fps', 'fpsTid0', 'fpsTid1', 'fpsTid2', 'framesDecoded', 'freezes',
  'checksumsCompared', 'checksumMismatches', 'rateKbps', 'sentKbps', 'gamma', 'lossP', 'lossGreen', 'lossYellow', 'lossRed', 'rttMs', 'utility',
];

/** One header line, one line per second; an unknown value is an empty cell. */
export function metricsCsv(rows: readonly MetricsRow[]): string {
  const cell = (v: number | null) => (v === null ? '' : String(Math.round(v * 1000) / 1000));
  return [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
}
