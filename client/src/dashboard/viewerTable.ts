/**
 * The dashboard's viewer table as data: one flat row per viewer, filtering
 * and sorting. Pure, so it is tested without a browser, and cheap enough to
 * run on every snapshot for hundreds of viewers.
 */
import type { RateControllerName } from '@pels/shared/rate/names';
import type { FlowModeName, LossDiagnosis, MediaTransport, UptaStateName } from '@pels/shared/protocol/api';
import type { OperatorViewer } from '@pels/shared/protocol/operator';

export interface ViewerRow {
  id: string;
  streamId: string;
  mode: FlowModeName;
  controller: RateControllerName;
  /** How the media reaches the viewer; null before ICE has chosen. */
  transport: MediaTransport | null;
  rateKbps: number;
  sentKbps: number;
  gamma: number;
  /** Loss of each color over the last receiver report interval; null before the first report. */
  lossGreen: number | null;
  lossYellow: number | null;
  lossRed: number | null;
  /** How the viewer's loss is read: clear, wire loss or congestion. */
  diagnosis: LossDiagnosis;
  /** Initials of the colors whose retransmissions reach the viewer now, e.g. "GY"; empty: none. */
  repaired: string;
  psnrDb: number | null;
  /** Live latency as the player reports it (frame entry at the server to display), median over its last 10 s, ms; null before a report. */
  latencyMs: number | null;
  /** The rendition sent (0: full size) and the switches so far. */
  rendition: number;
  renditionSwitches: number;
  /** What UPTA lets out (every layer, the base only, nothing); null with UPTA off. */
  upta: UptaStateName | null;
  rttMs: number | null;
  /** The viewer's sound: sent kb/s over the last second and loss of the last receiver report; null without sound. */
  audioKbps: number | null;
  audioLoss: number | null;
  /** ms since the epoch. */
  connectedAt: number;
}

export type SortKey = keyof ViewerRow;
export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
}

export interface ViewerFilter {
  /** Substring of the viewer or stream id, any case; empty: all. */
  text: string;
  /** Empty: every stream. */
  streamId: string;
  mode: FlowModeName | 'all';
}

export const NO_FILTER: ViewerFilter = { text: '', streamId: '', mode: 'all' };

export function toRow(v: OperatorViewer): ViewerRow {
  return {
    id: v.id,
    streamId: v.streamId,
    mode: v.mode,
    controller: v.controller,
    transport: v.transport,
    rateKbps: v.rateKbps,
    sentKbps: v.sentKbps,
    gamma: v.gamma,
    lossGreen: v.perColor.green.recentLoss,
    lossYellow: v.perColor.yellow.recentLoss,
    lossRed: v.perColor.red.recentLoss,
    diagnosis: v.congestion.diagnosis,
    repaired: v.rtx.repaired.map((c) => c[0]!.toUpperCase()).join(''),
    psnrDb: v.psnrDb,
    latencyMs: v.display?.latencyMs?.p50 ?? null,
    rendition: v.rendition.current,
    renditionSwitches: v.rendition.switches,
    upta: v.upta?.state ?? null,
    rttMs: v.rttMs,
    // A server from before sound sends no `audio`.
    audioKbps: v.audio?.kbps ?? null,
    audioLoss: v.audio?.fractionLost ?? null,
    connectedAt: Date.parse(v.connectedAt),
  };
}

export function filterRows(rows: readonly ViewerRow[], f: ViewerFilter): ViewerRow[] {
  const text = f.text.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (f.mode === 'all' || r.mode === f.mode) &&
      (!f.streamId || r.streamId === f.streamId) &&
      (!text || r.id.toLowerCase().includes(text) || r.streamId.toLowerCase().includes(text)),
  );
}

/**
 * Ties fall back to the viewer id, so rows do not swap places between
 * snapshots. Unknown values (null) go last in either direction: they are
 * not small, they are missing.
 */
export function sortRows(rows: readonly ViewerRow[], s: Sort): ViewerRow[] {
  const sign = s.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[s.key];
    const y = b[s.key];
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
    }
    return a.id.localeCompare(b.id);
  });
}

/** Clicking a column sorts by it; clicking it again reverses. Numbers start largest first, text A to Z. */
export function nextSort(current: Sort, key: SortKey, sample: ViewerRow | undefined): Sort {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  const numeric = sample ? typeof sample[key] === 'number' || sample[key] === null : false;
  return { key, dir: numeric && key !== 'connectedAt' ? 'desc' : 'asc' };
}
