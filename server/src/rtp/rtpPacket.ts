/** RTP packets (RFC 3550): written with the fixed 12-byte header, no CSRCs, no extensions; read with any. */
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

export interface ParsedRtpPacket extends RtpHeaderFields {
  payload: Buffer;
}

/** Reads an RTP packet (CSRCs, a header extension and padding skipped); null when it is not one. */
export function parseRtpPacket(pkt: Buffer): ParsedRtpPacket | null {
  if (pkt.length < RTP_HEADER_BYTES || pkt[0]! >> 6 !== 2) return null;
  let start = RTP_HEADER_BYTES + 4 * (pkt[0]! & 0x0f);
  if (pkt[0]! & 0x10) {
    if (pkt.length < start + 4) return null;
    start += 4 + 4 * pkt.readUInt16BE(start + 2);
  }
  let end = pkt.length;
  if (pkt[0]! & 0x20) end -= pkt[pkt.length - 1]!;
  if (start > end) return null;
  return {
    payloadType: pkt[1]! & 0x7f,
    marker: (pkt[1]! & 0x80) !== 0,
    sequenceNumber: pkt.readUInt16BE(2),
    timestamp: pkt.readUInt32BE(4),
    ssrc: pkt.readUInt32BE(8),
    payload: pkt.subarray(start, end),
  };
}

/** The value of header extension `id` (RFC 8285, one-byte or two-byte form) in an RTP packet; undefined when it has none. */
export function rtpHeaderExtension(pkt: Buffer, id: number): Buffer | undefined {
  if (pkt.length < RTP_HEADER_BYTES || !(pkt[0]! & 0x10)) return undefined;
  const at = RTP_HEADER_BYTES + 4 * (pkt[0]! & 0x0f);
  if (pkt.length < at + 4) return undefined;
  const profile = pkt.readUInt16BE(at);
  const end = Math.min(pkt.length, at + 4 + 4 * pkt.readUInt16BE(at + 2));
  const oneByte = profile === 0xbede;
  if (!oneByte && (profile & 0xfff0) !== 0x1000) return undefined;
  for (let i = at + 4; i < end; ) {
    if (pkt[i] === 0) {
      i++; // padding
      continue;
    }
    const elementId = oneByte ? pkt[i]! >> 4 : pkt[i]!;
    if (oneByte && elementId === 15) return undefined;
    const length = oneByte ? (pkt[i]! & 0x0f) + 1 : pkt[i + 1]!;
    const value = i + (oneByte ? 1 : 2);
    if (value + length > end) return undefined;
    if (elementId === id) return pkt.subarray(value, value + length);
    i = value + length;
  }
  return undefined;
}
