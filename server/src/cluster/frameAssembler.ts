import { parseRtpPacket } from '../rtp/rtpPacket';
import { parseVp8Descriptor } from '../rtp/vp8Descriptor';

/** One rendition's encoded frame as it left the origin's encoder, at the origin's stream index. */
export interface PipedFrame {
  index: number;
  data: Uint8Array;
}

const WRAP = 2 ** 32;

/**
 * Puts a piped rendition's VP8 frames back together from its RTP packets (RFC 7741: the S bit opens a
 * frame, the marker bit closes it). The origin stamps each frame's RTP timestamp with index x ticksPerFrame
 * (mod 2^32), so the frame's index is read back from it, unwrapped around the origin's index when the pipe
 * was set up. A frame with a packet missing (after the pipe's own repair) is dropped whole: the layering
 * reads the frame header, and a viewer's decoder would take a broken frame for a good one.
 */
export class FrameAssembler {
  private parts: Buffer[] = [];
  private timestamp = -1;
  private nextSeq = -1;
  /** The unwrapped timestamp of the last frame, the reference for the next one's. */
  private lastTicks: number;
  private dropped = 0;

  constructor(
    private readonly ticksPerFrame: number,
    originIndex: number,
  ) {
    this.lastTicks = originIndex * ticksPerFrame;
  }

  /** Frames lost whole or in part since the start. */
  get framesDropped(): number {
    return this.dropped;
  }

  /** One RTP packet; returns the frame it completes, if any. */
  push(packet: Buffer): PipedFrame | null {
    const rtp = parseRtpPacket(packet);
    if (!rtp || rtp.payload.length === 0) return null;
    const descriptor = parseVp8Descriptor(rtp.payload);
    const payload = rtp.payload.subarray(descriptor.length);
    if (descriptor.start) {
      if (this.parts.length) this.dropped++;
      this.parts = [payload];
      this.timestamp = rtp.timestamp;
    } else if (this.parts.length && rtp.timestamp === this.timestamp && rtp.sequenceNumber === this.nextSeq) {
      this.parts.push(payload);
    } else {
      if (this.parts.length) this.dropped++;
      this.parts = [];
      return null;
    }
    this.nextSeq = (rtp.sequenceNumber + 1) & 0xffff;
    if (!rtp.marker) return null;
    const data = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    return { index: this.indexOf(rtp.timestamp), data };
  }

  private indexOf(timestamp: number): number {
    let delta = (timestamp - (this.lastTicks % WRAP) + WRAP) % WRAP;
    if (delta >= WRAP / 2) delta -= WRAP;
    this.lastTicks += delta;
    return Math.round(this.lastTicks / this.ticksPerFrame);
  }
}
