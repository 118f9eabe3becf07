/** The testbed's TCP figures and the video goodput they are compared with. Pure. */
import { COLORS } from '@pels/shared/pels/color';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { TcpFlowEnd } from '../tcp/tcpFlows';
import { round } from './metrics';

export interface TcpFlowResult {
  id: string;
  bytes: number;
  /** Flow start to its last byte, s; null: still running at the end (an endless flow, or one cut by the run or its duration). */
  completionS: number | null;
  /** Throughput in each second of the run, kb/s (0 before the flows start). */
  kbpsPerSecond: number[];
  /** Mean throughput over the run's second half (the span the video figures cover), kb/s. */
  secondHalfKbps: number | null;
}

/** A second's cumulative bytes per flow; null before the flows started. */
export interface TcpSample {
  tcpBytes: number[] | null;
}

/** Each flow's per-second throughput and completion from the per-second byte counts; `halfFrom` is the first sample of the second half. */
export function tcpFlowResults(samples: readonly TcpSample[], ends: readonly (TcpFlowEnd | null)[], halfFrom: number): TcpFlowResult[] {
  return ends.map((end, i) => {
    const cum = samples.map((s) => s.tcpBytes?.[i] ?? 0);
    const kbpsPerSecond = cum.map((b, k) => round(((b - (k ? cum[k - 1]! : 0)) * 8) / 1000, 1)!);
    const from = Math.min(Math.max(0, halfFrom), cum.length - 1);
    const seconds = cum.length - 1 - from;
    const bytes = Math.max(end?.bytes ?? 0, cum[cum.length - 1] ?? 0);
    return {
      id: `t${i + 1}`,
      bytes,
      completionS: end?.complete ? round(end.atS, 2) : null,
      kbpsPerSecond,
      secondHalfKbps: seconds > 0 ? round(((cum[cum.length - 1]! - cum[from]!) * 8) / 1000 / seconds, 1) : null,
    };
  });
}

/** What reached the viewer: the mean sent rate less the share of packets lost between two states (all colors). */
export function videoGoodputKbps(sentKbps: number | null | undefined, a: ViewerState | null | undefined, b: ViewerState | null | undefined): number | null {
  if (sentKbps === null || sentKbps === undefined) return null;
  if (!a || !b) return sentKbps;
  let sent = 0;
  let lost = 0;
  for (const c of COLORS) {
    sent += b.perColor[c].packetsSent - a.perColor[c].packetsSent;
    lost += b.perColor[c].packetsLost - a.perColor[c].packetsLost;
  }
  const loss = sent > 0 ? Math.min(1, Math.max(0, lost / sent)) : 0;
  return round(sentKbps * (1 - loss), 1);
}
