/**
 * Reads the Opus packets out of FFmpeg's Ogg output (RFC 3533, RFC 7845) as
 * the bytes come, each with the position of its first sample in the run's
 * 48 kHz timeline (the source's capture clock, the video's too). Pure: bytes
 * in, packets out.
 */
import { opusSamples } from '../rtp/opusPacket';

export interface OpusPacket {
  data: Buffer;
  /** 48 kHz sample of the source at which the packet's sound starts (may be below 0 for the first, by the encoder's delay). */
  startSample: number;
  /** Samples (48 kHz) the packet holds. */
  samples: number;
}

const CAPTURE = Buffer.from('OggS');
const HEADER_BYTES = 27;
/** A page is at most 27 + 255 + 255 * 255 bytes: more than that without a capture pattern is not Ogg. */
const MAX_PAGE_BYTES = HEADER_BYTES + 255 + 255 * 255;

export class OggOpusReader {
  private buffered: Buffer = Buffer.alloc(0);
  /** A packet continued on the next page. */
  private partial: Buffer[] = [];
  /** OpusHead's pre-skip: samples the decoder drops at the start, the encoder's delay. */
  private preSkip = 0;
  /** Header packets (OpusHead, OpusTags) still to come. */
  private headers = 2;

  /** The packets completed by `chunk`. Throws on bytes that are not Ogg. */
  push(chunk: Buffer): OpusPacket[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const out: OpusPacket[] = [];
    for (;;) {
      if (this.buffered.length < HEADER_BYTES) break;
      if (!this.buffered.subarray(0, 4).equals(CAPTURE)) throw new Error('audio: not an Ogg page');
      const segments = this.buffered[26]!;
      const headerBytes = HEADER_BYTES + segments;
      if (this.buffered.length < headerBytes) break;
      const lacing = this.buffered.subarray(HEADER_BYTES, headerBytes);
      const bodyBytes = lacing.reduce((a, b) => a + b, 0);
      if (this.buffered.length < headerBytes + bodyBytes) break;
      const granule = Number(this.buffered.readBigInt64LE(6));
      const body = this.buffered.subarray(headerBytes, headerBytes + bodyBytes);
      out.push(...this.page(lacing, body, granule));
      this.buffered = this.buffered.subarray(headerBytes + bodyBytes);
    }
    if (this.buffered.length > MAX_PAGE_BYTES) throw new Error('audio: Ogg page too long');
    return out;
  }

  private page(lacing: Buffer, body: Buffer, granule: number): OpusPacket[] {
    const packets: Buffer[] = [];
    let off = 0;
    for (const len of lacing) {
      this.partial.push(body.subarray(off, off + len));
      off += len;
      // A lacing value below 255 ends a packet; 255 continues it (on this page or the next).
      if (len < 255) {
        packets.push(Buffer.concat(this.partial));
        this.partial = [];
      }
    }
    const audio: Buffer[] = [];
    for (const p of packets) {
      if (this.headers > 0) {
        this.headers--;
        if (p.subarray(0, 8).toString('latin1') === 'OpusHead' && p.length >= 12) this.preSkip = p.readUInt16LE(10);
      } else audio.push(p);
    }
    // The granule position counts the samples up to the end of the last packet completed on the page, pre-skip included.
    const samples = audio.map(opusSamples);
    let start = granule - this.preSkip - samples.reduce((a, b) => a + b, 0);
    return audio.map((data, i) => {
      const p = { data, startSample: start, samples: samples[i]! };
      start += samples[i]!;
      return p;
    });
  }
}
