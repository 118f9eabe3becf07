/** Reads the feedback messages a sender acts on from a compound RTCP packet (RFC 3550, 4585, 5104). */
export type RtcpFeedback =
  | { type: 'pli'; mediaSsrc: number }
  | { type: 'fir'; mediaSsrc: number }
  | { type: 'nack'; mediaSsrc: number; lostSequenceNumbers: number[] }
  | { type: 'rr'; reports: ReceiverReportBlock[] };

export interface ReceiverReportBlock {
  ssrc: number;
  fractionLost: number;
  cumulativeLost: number;
  extendedHighestSequence: number;
  jitter: number;
}

const RTCP_SR = 200;
const RTCP_RR = 201;
const RTCP_RTPFB = 205;
const RTCP_PSFB = 206;

/** Never throws: malformed trailing data ends the walk. */
export function parseRtcpFeedback(buf: Uint8Array): RtcpFeedback[] {
  const out: RtcpFeedback[] = [];
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 0;
  while (off + 4 <= buf.length) {
    const count = buf[off]! & 0x1f;
    const pt = buf[off + 1]!;
    const len = (view.getUint16(off + 2) + 1) * 4;
    if ((buf[off]! >> 6) !== 2 || off + len > buf.length) break;
    if (pt === RTCP_PSFB && len >= 12) {
      if (count === 1) out.push({ type: 'pli', mediaSsrc: view.getUint32(off + 8) });
      else if (count === 4 && len >= 20) out.push({ type: 'fir', mediaSsrc: view.getUint32(off + 12) });
    } else if (pt === RTCP_RTPFB && count === 1 && len >= 16) {
      const lost: number[] = [];
      for (let o = off + 12; o + 4 <= off + len; o += 4) {
        const pid = view.getUint16(o);
        const blp = view.getUint16(o + 2);
        lost.push(pid);
        for (let b = 0; b < 16; b++) if (blp & (1 << b)) lost.push((pid + b + 1) & 0xffff);
      }
      out.push({ type: 'nack', mediaSsrc: view.getUint32(off + 8), lostSequenceNumbers: lost });
    } else if (pt === RTCP_RR || pt === RTCP_SR) {
      const first = off + (pt === RTCP_SR ? 28 : 8);
      const reports: ReceiverReportBlock[] = [];
      for (let i = 0; i < count && first + (i + 1) * 24 <= off + len; i++) {
        const o = first + i * 24;
        const lostSigned = (view.getUint32(o + 4) & 0xffffff) << 8 >> 8;
        reports.push({
          ssrc: view.getUint32(o),
          fractionLost: buf[o + 4]! / 256,
          cumulativeLost: lostSigned,
          extendedHighestSequence: view.getUint32(o + 8),
          jitter: view.getUint32(o + 12),
        });
      }
      out.push({ type: 'rr', reports });
    }
    off += len;
  }
  return out;
}
