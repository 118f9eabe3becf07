import { writeRtpPacket, RTP_HEADER_BYTES } from './rtpPacket';
import { writeVp8Descriptor, VP8_DESCRIPTOR_BYTES, type Vp8DescriptorFields } from './vp8Descriptor';

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

  packetize(f: Vp8FrameToSend): Buffer[] {
    const count = Math.max(1, Math.ceil(f.data.length / this.maxPayload));
    // Equal-sized packets rather than full ones followed by a runt.
    const chunk = Math.ceil(f.data.length / count);
    const packets: Buffer[] = [];
    for (let k = 0; k < count; k++) {
      const descriptor = writeVp8Descriptor({ ...f, start: k === 0 });
      const payload = f.data.subarray(k * chunk, Math.min(f.data.length, (k + 1) * chunk));
      packets.push(
        writeRtpPacket(
          { payloadType: this.payloadType, sequenceNumber: this.nextSeq, timestamp: f.timestamp, ssrc: this.ssrc, marker: k === count - 1 },
          [descriptor, payload],
        ),
      );
      this.nextSeq = (this.nextSeq + 1) & 0xffff;
    }
    return packets;
  }
}
