/**
 * SRT's ingest bound, RTMP's (StaleMediaSkip) on MPEG-TS: the publisher's
 * packets on their way to the ingest, in chunks cut anywhere. Each PES (a
 * video frame, a few audio frames) is kept or dropped whole, decided at its
 * first packet from its PTS and how far behind the ingest is (the unread
 * packets' span of video time, MediaBacklog); the packets of every PES kept
 * after a drop have their PTS, DTS and PCR moved back by the span dropped (90
 * kHz, wrapping at 2^33) and their continuity counters closed over the packets
 * dropped, so FFmpeg's demuxer sees one continuous stream: no timestamp gap
 * for its frame-rate filter to fill with copies, no continuity error to mark
 * the next frame corrupt. Tables and other packets pass as they are. Pure.
 */
import { MediaBacklog } from '../mediaBacklog';
import { PTS_WRAP_MS } from '../mediaArrivals';
import { StaleMediaSkip, type MediaKind } from '../staleMediaSkip';
import { eachTsPacket, startsKeyframe, TS_PACKET } from './tsProgram';

const PTS_WRAP = 2 ** 33;

interface PidState {
  /** Whether the PES now on this packet id is written. */
  keep: boolean;
  /** The 90 kHz span taken off its timestamps. */
  shift: number;
  /** Its packets with a payload dropped so far, mod 16: their counters are skipped. */
  dropped: number;
}

export class TsMediaSkip {
  readonly skip: StaleMediaSkip;
  private readonly backlog = new MediaBacklog(PTS_WRAP_MS);
  private readonly pids = new Map<number, PidState>();
  private carry = Buffer.alloc(0);
  /** The time written of the last video frame kept: what the packets written are counted at in the backlog. */
  private videoOutMs = 0;

  /** `onFrame`: each video frame kept, with its PTS (ms) and the span dropped before it (ms). */
  constructor(
    private readonly videoPid: number,
    private readonly hevc: boolean,
    maxBehindMs: number,
    private readonly onFrame: (ptsMs: number, shiftMs: number) => void,
  ) {
    this.skip = new StaleMediaSkip(maxBehindMs, PTS_WRAP_MS);
  }

  /** What of `chunk` (with what it held of the last) goes to the ingest, `unread` bytes of it still unread there. */
  push(chunk: Buffer, unread: number): Buffer {
    // A copy: packets kept are rewritten in place.
    const bytes = Buffer.concat([this.carry, chunk]);
    const out: Buffer[] = [];
    let written = 0;
    const at = eachTsPacket(bytes, (packet) => {
      if (!this.keep(packet, unread + written)) return;
      out.push(packet);
      written += TS_PACKET;
      this.backlog.wrote(TS_PACKET, this.videoOutMs);
    });
    this.carry = at >= 0 && at < bytes.length ? Buffer.from(bytes.subarray(at)) : Buffer.alloc(0);
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }

  /** Whether `packet` is written (rewritten if so), `unread` bytes not yet read by the ingest. */
  private keep(packet: Buffer, unread: number): boolean {
    const pid = ((packet[1]! & 0x1f) << 8) | packet[2]!;
    const afc = (packet[3]! >> 4) & 3;
    const hasPayload = (afc & 1) === 1;
    const pes = packet[1]! & 0x40 && hasPayload ? pesAt(packet, afc) : -1;
    let state = this.pids.get(pid);
    if (pes >= 0 && packet[pes + 7]! & 0x80) {
      const ptsMs = readTimestamp(packet, pes + 9) / 90;
      const video = pid === this.videoPid;
      const kind: MediaKind = !video ? 'audio' : startsKeyframe(packet, this.hevc) ? 'keyframe' : 'frame';
      const outMs = this.skip.next(kind, ptsMs, this.backlog.behindMs(unread));
      if (!state) this.pids.set(pid, (state = { keep: true, shift: 0, dropped: 0 }));
      state.keep = outMs !== null;
      state.shift = Math.round(this.skip.shiftMs * 90);
      if (video && outMs !== null) {
        this.videoOutMs = outMs;
        this.onFrame(ptsMs, this.skip.shiftMs);
      }
    }
    // Tables and anything not yet seen to carry timed PES.
    if (!state) return true;
    if (!state.keep) {
      if (hasPayload) state.dropped = (state.dropped + 1) & 0x0f;
      return false;
    }
    if (state.dropped) packet[3] = (packet[3]! & 0xf0) | ((packet[3]! - state.dropped) & 0x0f);
    if (state.shift) {
      if (afc & 2 && packet[4]! >= 7 && packet[5]! & 0x10) shiftPcr(packet, state.shift);
      if (pes >= 0) {
        const flags = packet[pes + 7]! >> 6;
        if (flags & 2) writeTimestamp(packet, pes + 9, readTimestamp(packet, pes + 9) - state.shift);
        if (flags === 3) writeTimestamp(packet, pes + 14, readTimestamp(packet, pes + 14) - state.shift);
      }
    }
    return true;
  }
}

/** Where the PES header a packet starts begins (with room for its PTS, and its DTS when it has one), or -1. */
function pesAt(packet: Buffer, afc: number): number {
  const p = 4 + (afc & 2 ? 1 + packet[4]! : 0);
  if (p + (packet[p + 7]! >> 6 === 3 ? 19 : 14) > packet.length || packet[p] !== 0 || packet[p + 1] !== 0 || packet[p + 2] !== 1) return -1;
  // The optional header's marker bits ('10'): streams without it (padding, private 2) carry no timestamps.
  return (packet[p + 6]! & 0xc0) === 0x80 ? p : -1;
}

/** A 33-bit PES timestamp (PTS or DTS) at `at`. */
function readTimestamp(b: Buffer, at: number): number {
  return ((b[at]! >> 1) & 0x07) * 2 ** 30 + ((b[at + 1]! << 22) | ((b[at + 2]! >> 1) << 15) | (b[at + 3]! << 7) | (b[at + 4]! >> 1));
}

/** Writes `value` (mod 2^33) as a PES timestamp at `at`, keeping its 4-bit prefix and marker bits. */
function writeTimestamp(b: Buffer, at: number, value: number): void {
  const v = ((value % PTS_WRAP) + PTS_WRAP) % PTS_WRAP;
  const low = v % 2 ** 30;
  b[at] = (b[at]! & 0xf0) | (Math.floor(v / 2 ** 30) << 1) | 1;
  b[at + 1] = low >>> 22;
  b[at + 2] = ((low >>> 14) & 0xfe) | 1;
  b[at + 3] = (low >>> 7) & 0xff;
  b[at + 4] = ((low << 1) & 0xfe) | 1;
}

/** The adaptation field's PCR base (33 bits at 90 kHz) moved back by `shift`; its 27 MHz extension stays. */
function shiftPcr(b: Buffer, shift: number): void {
  const base = b[6]! * 2 ** 25 + b[7]! * 2 ** 17 + b[8]! * 2 ** 9 + b[9]! * 2 + (b[10]! >> 7);
  const v = (((base - shift) % PTS_WRAP) + PTS_WRAP) % PTS_WRAP;
  b[6] = Math.floor(v / 2 ** 25);
  b[7] = Math.floor(v / 2 ** 17) & 0xff;
  b[8] = Math.floor(v / 2 ** 9) & 0xff;
  b[9] = Math.floor(v / 2) & 0xff;
  b[10] = (b[10]! & 0x7f) | ((v & 1) << 7);
}
