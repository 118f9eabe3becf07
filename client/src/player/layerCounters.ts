/**
 * Packets received and lost on each color stream so far, from the receive
 * transport's WebRTC stats (inbound-rtp `packetsReceived`, `packetsLost`),
 * for the receiver-driven layer choice.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';

export type LayerCounters = Record<Color, { received: number; lost: number }>;

interface InboundRtp {
  type?: string;
  ssrc?: number;
  packetsReceived?: number;
  packetsLost?: number;
}

export function layerCounters(report: RTCStatsReport, colorOfSsrc: ReadonlyMap<number, Color>): LayerCounters {
  const out = Object.fromEntries(COLORS.map((c) => [c, { received: 0, lost: 0 }])) as LayerCounters;
  report.forEach((s: InboundRtp) => {
    const color = s.type === 'inbound-rtp' && s.ssrc !== undefined ? colorOfSsrc.get(s.ssrc) : undefined;
    if (!color) return;
    out[color].received += s.packetsReceived ?? 0;
    out[color].lost += Math.max(0, s.packetsLost ?? 0);
  });
  return out;
}
