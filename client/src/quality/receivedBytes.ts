/**
 * Payload bytes received per color, from the receive transport's WebRTC stats
 * (inbound-rtp `bytesReceived` by SSRC): every packet that arrived, including those
 * of frames that never completed. That is the denominator of the utility of
 * enhancement data (paper eq. 3), which the frame transforms cannot see.
 */
import type { Color } from '@pels/shared/pels/color';
import type { ColorBytes } from './coverage';

export function receivedBytes(report: RTCStatsReport, colorOfSsrc: ReadonlyMap<number, Color>): ColorBytes {
  const out: ColorBytes = { green: 0, yellow: 0, red: 0 };
  report.forEach((s: { type?: string; ssrc?: number; bytesReceived?: number }) => {
    if (s.type !== 'inbound-rtp' || s.ssrc === undefined) return;
    const color = colorOfSsrc.get(s.ssrc);
    if (color) out[color] += s.bytesReceived ?? 0;
  });
  return out;
}
