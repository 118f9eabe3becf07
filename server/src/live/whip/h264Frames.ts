/**
 * H.264 over RTP (RFC 6184, packetization mode 1: single NAL units, STAP-A,
 * FU-A) back into access units in Annex B, as FFmpeg's raw H.264 reader takes
 * them. Packets are grouped by RTP timestamp and a frame goes out once every
 * packet from its first to its marker came, in order; retransmissions fill
 * gaps while a frame waits. A frame that stays incomplete past `maxWaitMs`
 * while a newer one is complete is dropped, and from then on (as at the start)
 * frames are held back until a keyframe: a decoder fed a frame whose reference
 * is missing shows smeared garbage, a short freeze is the better picture.
 * Pure: the caller gives the time.
 */
import type { ParsedRtpPacket } from '../../rtp/rtpPacket';
import { Unwrapper } from '../../rtp/unwrap';

export interface H264Frame {
  timestamp: number;
  /** Holds an IDR slice: a decoder can start here. */
  keyframe: boolean;
  /** The frame's NAL units, each after a 4-byte start code. */
  data: Buffer;
}

const START_CODE = Buffer.from([0, 0, 0, 1]);
const NAL_IDR = 5;
const NAL_STAP_A = 24;
const NAL_FU_A = 28;
/** Frames waiting at most; past it the oldest goes (a publisher sending only fragments must not grow memory). */
const MAX_PENDING_FRAMES = 64;

interface PendingFrame {
  timestamp: number;
  /** Payloads by extended sequence number. */
  packets: Map<number, Buffer>;
  lowest: number;
  markerSeq: number | null;
  firstSeenMs: number;
}

export class H264FrameAssembler {
  private readonly pending = new Map<number, PendingFrame>();
  private readonly sequence = new Unwrapper(16);
  /** Packets at or below it belong to frames already sent or dropped. */
  private floor = -Infinity;
  /** The sequence number the next frame starts at, when the last one went out whole. */
  private nextFirst: number | null = null;
  private awaitingKeyframe = true;
  /** Frames dropped, incomplete or before a keyframe. */
  dropped = 0;

  constructor(private readonly maxWaitMs = 150) {}

  /** Frames are held back until a keyframe comes: the caller asks the publisher for one. */
  get needsKeyframe(): boolean {
    return this.awaitingKeyframe;
  }

  /** One RTP packet; returns the frames it completed, oldest first. */
  push(p: ParsedRtpPacket, nowMs: number): H264Frame[] {
    const seq = this.sequence.extend(p.sequenceNumber);
    if (seq > this.floor && p.payload.length > 0) {
      let f = this.pending.get(p.timestamp);
      if (!f) {
        f = { timestamp: p.timestamp, packets: new Map(), lowest: seq, markerSeq: null, firstSeenMs: nowMs };
        this.pending.set(p.timestamp, f);
      }
      f.packets.set(seq, p.payload);
      f.lowest = Math.min(f.lowest, seq);
      if (p.marker) f.markerSeq = seq;
      if (this.pending.size > MAX_PENDING_FRAMES) this.drop(this.oldest()!);
    }
    return this.flush(nowMs);
  }

  /** Frames due at `nowMs`: complete ones in order, after dropping any that waited too long. */
  flush(nowMs: number): H264Frame[] {
    const out: H264Frame[] = [];
    for (let f = this.oldest(); f; f = this.oldest()) {
      const first = this.firstSeq(f);
      if (first !== null && f.markerSeq !== null && this.whole(f, first, f.markerSeq)) {
        this.pending.delete(f.timestamp);
        this.floor = f.markerSeq;
        this.nextFirst = f.markerSeq + 1;
        const frame = annexB(f, first, f.markerSeq);
        if (frame && (frame.keyframe || !this.awaitingKeyframe)) {
          this.awaitingKeyframe = false;
          out.push(frame);
        } else {
          // Unreadable packets, or a frame before the keyframe the decoder needs first.
          this.dropped++;
          if (!frame) this.awaitingKeyframe = true;
        }
        continue;
      }
      const newerComplete = [...this.pending.values()].some((g) => g !== f && g.markerSeq !== null && g.lowest > f.lowest);
      if (!newerComplete || nowMs - f.firstSeenMs < this.maxWaitMs) break;
      this.drop(f);
    }
    return out;
  }

  private drop(f: PendingFrame): void {
    this.pending.delete(f.timestamp);
    this.floor = Math.max(this.floor, f.markerSeq ?? Math.max(...f.packets.keys()));
    this.nextFirst = null;
    this.awaitingKeyframe = true;
    this.dropped++;
  }

  private oldest(): PendingFrame | undefined {
    let o: PendingFrame | undefined;
    for (const f of this.pending.values()) if (!o || f.lowest < o.lowest) o = f;
    return o;
  }

  /** Where `f` starts: right after the last frame sent, or at a packet that starts a NAL unit. */
  private firstSeq(f: PendingFrame): number | null {
    if (this.nextFirst !== null) return f.packets.has(this.nextFirst) ? this.nextFirst : null;
    return startsNal(f.packets.get(f.lowest)!) ? f.lowest : null;
  }

  private whole(f: PendingFrame, first: number, last: number): boolean {
    if (last - first + 1 !== f.packets.size) return false;
    for (let s = first; s <= last; s++) if (!f.packets.has(s)) return false;
    return true;
  }
}

/** A payload that starts a NAL unit (not the middle or end of a fragmented one). */
function startsNal(payload: Buffer): boolean {
  const type = payload[0]! & 0x1f;
  return type !== NAL_FU_A || (payload.length > 1 && (payload[1]! & 0x80) !== 0);
}

/** The frame's NAL units in Annex B; null when a packet cannot be read (a mode other than 1, a cut fragment). */
function annexB(f: PendingFrame, first: number, last: number): H264Frame | null {
  const parts: Buffer[] = [];
  let keyframe = false;
  let inFragment = false;
  const nal = (type: number, ...bytes: Buffer[]) => {
    if (type === NAL_IDR) keyframe = true;
    parts.push(START_CODE, ...bytes);
  };
  for (let s = first; s <= last; s++) {
    const p = f.packets.get(s)!;
    const type = p[0]! & 0x1f;
    if (type === NAL_FU_A) {
      if (p.length < 3) return null;
      const start = (p[1]! & 0x80) !== 0;
      const end = (p[1]! & 0x40) !== 0;
      if (start === inFragment) return null;
      if (start) nal(p[1]! & 0x1f, Buffer.from([(p[0]! & 0xe0) | (p[1]! & 0x1f)]), p.subarray(2));
      else parts.push(p.subarray(2));
      inFragment = !end;
      continue;
    }
    if (inFragment) return null;
    if (type === NAL_STAP_A) {
      for (let off = 1; off < p.length; ) {
        if (off + 2 > p.length) return null;
        const size = p.readUInt16BE(off);
        if (size === 0 || off + 2 + size > p.length) return null;
        nal(p[off + 2]! & 0x1f, p.subarray(off + 2, off + 2 + size));
        off += 2 + size;
      }
    } else if (type >= 1 && type <= 23) nal(type, p);
    else return null;
  }
  if (inFragment || !parts.length) return null;
  return { timestamp: f.timestamp, keyframe, data: Buffer.concat(parts) };
}
