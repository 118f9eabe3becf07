/** Writes RTP packets (RFC 3550): fixed 12-byte header, no CSRCs, no extensions. */
export interface RtpHeaderFields {
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
}

export const RTP_HEADER_BYTES = 12;

export function writeRtpPacket(h: RtpHeaderFields, payloadParts: readonly Uint8Array[]): Buffer {
  let payloadBytes = 0;
  for (const p of payloadParts) payloadBytes += p.length;
  const pkt = Buffer.allocUnsafe(RTP_HEADER_BYTES + payloadBytes);
  stampRtpHeader(pkt, h);
  let off = RTP_HEADER_BYTES;
  for (const p of payloadParts) {
    pkt.set(p, off);
    off += p.length;
  }
  return pkt;
}

/** Writes the fixed header into the first 12 bytes of pkt. */
export function stampRtpHeader(pkt: Buffer, h: RtpHeaderFields): void {
  pkt[0] = 0x80; // version 2
  pkt[1] = (h.marker ? 0x80 : 0) | (h.payloadType & 0x7f);
  pkt.writeUInt16BE(h.sequenceNumber & 0xffff, 2);
  pkt.writeUInt32BE(h.timestamp >>> 0, 4);
  pkt.writeUInt32BE(h.ssrc >>> 0, 8);
}
