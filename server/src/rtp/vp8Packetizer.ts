import { stampRtpHeader, writeRtpPacket, RTP_HEADER_BYTES } from './rtpPacket';
import { writeVp8Descriptor, VP8_DESCRIPTOR_BYTES, VP8_TL0PICIDX_OFFSET, type Vp8DescriptorFields } from './vp8Descriptor';

export interface Vp8FrameToSend extends Omit<Vp8DescriptorFields, 'start'> {
  data: Uint8Array;
  timestamp: number;
}

/**
 * Splits VP8 frames into RTP packets for one RTP stream (one SSRC), keeping
 * that stream's sequence numbers. The marker bit ends each frame.
 */
export class Vp8Packetizer {
  private nextSeq: number;
  private readonly maxPayload: number;

  constructor(
    readonly ssrc: number,
    readonly payloadType: number,
    opts: { mtu?: number; initialSequence?: number } = {},
  ) {
    // 1200 bytes of RTP leaves room for SRTP, UDP, IP and TURN headers under 1280.
    this.maxPayload = (opts.mtu ?? 1200) - RTP_HEADER_BYTES - VP8_DESCRIPTOR_BYTES;
    this.nextSeq = (opts.initialSequence ?? Math.floor(Math.random() * 0x8000)) & 0xffff;
  }

  get sequenceNumber(): number {
    return this.nextSeq;
  }

  /**
   * The frame's packets on this stream: copies of the frame's packet
   * templates (shared by every stream that sends the frame) with this
   * stream's RTP header and TL0PICIDX stamped in.
   */
  packetize(f: Vp8FrameToSend): Buffer[] {
    const templates = frameTemplates(f, this.maxPayload);
    const packets: Buffer[] = new Array(templates.length);
    for (let k = 0; k < templates.length; k++) {
      const t = templates[k]!;
      const pkt = Buffer.allocUnsafe(t.length);
      t.copy(pkt);
      stampRtpHeader(pkt, { payloadType: this.payloadType, sequenceNumber: this.nextSeq, timestamp: f.timestamp, ssrc: this.ssrc, marker: k === templates.length - 1 });
      pkt[RTP_HEADER_BYTES + VP8_TL0PICIDX_OFFSET] = f.tl0PicIdx & 0xff;
      packets[k] = pkt;
      this.nextSeq = (this.nextSeq + 1) & 0xffff;
    }
    return packets;
  }
}

/** A frame's packets without what differs per stream (RTP header zeroed, TL0PICIDX 0), and what they were made for. */
interface FrameTemplates {
  key: string;
  packets: Buffer[];
}

/** By the frame's data: every viewer's flow is handed the same frame object. */
const templatesByData = new WeakMap<Uint8Array, FrameTemplates>();

/**
 * Splits a frame into its packets once, for every stream that sends it: the
 * payload boundaries and the descriptor (but TL0PICIDX, which each stream
 * numbers itself) are the same on all of them.
 */
export function frameTemplates(f: Omit<Vp8FrameToSend, 'timestamp' | 'tl0PicIdx'>, maxPayload: number): Buffer[] {
  const key = `${f.pictureId}/${f.temporalId}/${+f.layerSync}/${+f.nonReference}/${maxPayload}`;
  const cached = templatesByData.get(f.data);
  if (cached?.key === key) return cached.packets;
  const count = Math.max(1, Math.ceil(f.data.length / maxPayload));
  // Equal-sized packets rather than full ones followed by a runt.
  const chunk = Math.ceil(f.data.length / count);
  const packets: Buffer[] = [];
  for (let k = 0; k < count; k++) {
    const descriptor = writeVp8Descriptor({ ...f, tl0PicIdx: 0, start: k === 0 });
    const payload = f.data.subarray(k * chunk, Math.min(f.data.length, (k + 1) * chunk));
    packets.push(writeRtpPacket({ payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, marker: false }, [descriptor, payload]));
  }
  templatesByData.set(f.data, { key, packets });
  return packets;
}
