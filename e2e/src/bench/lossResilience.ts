/**
 * Loss-resilience benchmark: one viewer behind a 2000 kb/s bottleneck with
 * random loss, in three modes side by side: PELS (green retransmitted),
 * best effort (nothing retransmitted) and nack (every stream retransmitted,
 * one DSCP: what a stock SFU with NACK does). One testbed run per cell.
 */
import type { FlowModeName } from '@pels/shared/protocol/api';
import { round } from '../testbed/metrics';
import { runTestbed, TESTBED_DEFAULTS, type ViewerResult } from '../testbed/testbed';

export const LOSS_CAPACITY_KBPS = 2000;

export interface LossRow {
  lossPct: number;
  mode: FlowModeName;
  /** Second-half averages, as the testbed reports them. */
  fps: number | null;
  psnrMean: number | null;
  psnrP5: number | null;
  scoredShare: number | null;
  freezesPerMinute: number | null;
  /** Retransmitted bytes as a share of the bytes sent, percent. */
  rtxOverheadPct: number | null;
  pliSent: number | null;
  firstFrameMs: number | null;
  timeToFullRateMs: number | null;
  errors: string[];
}

function row(lossPct: number, mode: FlowModeName, seconds: number, v: ViewerResult | undefined): LossRow {
  return {
    lossPct,
    mode,
    fps: v?.fps ?? null,
    psnrMean: v?.psnr?.mean ?? null,
    psnrP5: v?.psnr?.p5 ?? null,
    scoredShare: v?.psnr?.scoredShare ?? null,
    // The testbed counts freezes over the whole run.
    freezesPerMinute: v?.freezes === undefined ? null : round((v.freezes * 60) / seconds, 1),
    rtxOverheadPct: v?.rtx?.overheadPct ?? null,
    pliSent: v?.pliSent ?? null,
    firstFrameMs: v?.firstFrameMs ?? null,
    timeToFullRateMs: v?.timeToFullRateMs ?? null,
    errors: v?.errors ?? ['no viewer in the result'],
  };
}

export async function lossResilience(
  o: { lossPct: number[]; modes: FlowModeName[]; seconds: number },
  progress: (m: string) => void,
): Promise<LossRow[]> {
  const rows: LossRow[] = [];
  for (const lossPct of o.lossPct) {
    for (const mode of o.modes) {
      progress(`${mode}, ${lossPct}% random loss, ${LOSS_CAPACITY_KBPS} kb/s, ${o.seconds} s`);
      const { result } = await runTestbed({ ...TESTBED_DEFAULTS, viewers: 1, seconds: o.seconds, capacityKbps: LOSS_CAPACITY_KBPS, lossPct, mode }, (m) => {
        if (m.startsWith('server: ')) progress(m);
      });
      rows.push(row(lossPct, mode, o.seconds, result.viewers[0]));
    }
  }
  return rows;
}

/** The table as printed (and pasted into the README). */
export function formatLossTable(rows: readonly LossRow[]): string[] {
  const cell = (x: number | null, digits = 1) => (x === null ? '-' : x.toFixed(digits));
  const lines = [
    '| loss | mode | fps | PSNR mean (dB) | PSNR p5 (dB) | scored | freezes/min | RTX overhead | PLIs | first frame (ms) | to 90% rate (ms) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.lossPct}% | ${r.mode} | ${cell(r.fps)} | ${cell(r.psnrMean)} | ${cell(r.psnrP5)} | ${r.scoredShare === null ? '-' : `${Math.round(r.scoredShare * 100)}%`} | ${cell(r.freezesPerMinute)} | ${r.rtxOverheadPct === null ? '-' : `${r.rtxOverheadPct.toFixed(1)}%`} | ${r.pliSent ?? '-'} | ${cell(r.firstFrameMs, 0)} | ${r.timeToFullRateMs === null ? 'never' : r.timeToFullRateMs.toFixed(0)} |`,
    );
  }
  return lines;
}
