/**
 * The player's URL parameters:
 * - `stream=ID`: the stream to play (else the first the server lists);
 * - `colors=green,yellow`: the colors to receive; green (the base layer) is always included;
 * - `deadline=MS`: how long a frame may wait for the frames before it (default 80);
 * - `mode=best-effort` or `mode=nack`: ask for a best-effort flow (no coloring), without or
 *   with retransmission on every stream, instead of PELS;
 * - `cc=NAME`: the rate controller (mkc, aimd, iiad, sqrt, tfrc, rap, fuzzy, iscc) instead of
 *   the stream's; the server refuses a name it does not know, and the player says so.
 * - `rx=rlm` (or `mode=rlm`): receiver-driven layers: the server sends every frame of the
 *   layers subscribed and the player joins and leaves layers itself by the loss it measures.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import { FLOW_MODES, type FlowModeName } from '@pels/shared/protocol/api';
import { DEFAULT_PLAYOUT_DEADLINE_MS } from './frameMerger';

export interface PlayerParams {
  streamId: string | undefined;
  colors: Color[];
  playoutDeadlineMs: number;
  mode: FlowModeName;
  /** As given; the server checks it. */
  controller: string | undefined;
}

/** Known colors only, green always, in importance order. */
export function normalizeColors(colors: readonly string[]): Color[] {
  return COLORS.filter((c) => c === 'green' || colors.includes(c));
}

export function parsePlayerParams(search: string): PlayerParams {
  const q = new URLSearchParams(search);
  const colorsParam = q.get('colors');
  const deadline = Number(q.get('deadline'));
  return {
    streamId: q.get('stream') || undefined,
    colors: colorsParam === null ? [...COLORS] : normalizeColors(colorsParam.split(',').map((c) => c.trim().toLowerCase())),
    playoutDeadlineMs: q.has('deadline') && Number.isFinite(deadline) && deadline >= 0 ? deadline : DEFAULT_PLAYOUT_DEADLINE_MS,
    mode: q.get('rx') === 'rlm' ? 'rlm' : (FLOW_MODES.find((m) => m === q.get('mode')) ?? 'pels'),
    controller: q.get('cc') || undefined,
  };
}

/** `search` with the stream and colors replaced; colors are left out when all are wanted. */
export function withPlayerParams(search: string, streamId: string | undefined, colors: readonly Color[]): string {
  const q = new URLSearchParams(search);
  if (streamId) q.set('stream', streamId);
  else q.delete('stream');
  if (colors.length === COLORS.length) q.delete('colors');
  else q.set('colors', colors.join(','));
  const s = q.toString().replace(/%2C/gi, ','); // commas are fine in a query; keep the URL readable
  return s ? `?${s}` : '';
}
