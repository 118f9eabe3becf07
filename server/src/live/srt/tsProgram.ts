/**
 * What an MPEG-TS stream carries, from its program tables: the program map
 * (PMT, found through the PAT) lists each elementary stream's type. An SRT
 * publisher's ingest starts once it is known whether sound comes with the
 * video (FFmpeg's audio output needs a stream to map). Each table is taken
 * from the packet that starts it (publishers' tables fit one packet). Pure.
 */
import type { ProbedAudio } from '../../ingest/sourceSpec';

export const TS_PACKET = 188;
/** Each packet's first byte. */
export const SYNC = 0x47;

/** Audio stream types (ISO 13818-1 and ATSC) by codec name; others (private data, subtitles) are not sound the ingest maps. */
const AUDIO_TYPES: Record<number, string> = { 0x03: 'mp3', 0x04: 'mp2', 0x0f: 'aac', 0x11: 'aac_latm', 0x81: 'ac3' };
const VIDEO_TYPES: Record<number, string> = { 0x01: 'mpeg1video', 0x02: 'mpeg2video', 0x10: 'mpeg4', 0x1b: 'h264', 0x24: 'hevc' };

export interface TsProgram {
  video: string | null;
  /** The video stream's packet id, whose PES headers carry its frames' timestamps. */
  videoPid: number | null;
  audio: ProbedAudio | null;
}

/**
 * Visits each whole packet of `bytes` in order, finding the sync byte again after stray bytes, until `visit`
 * answers true. Returns where it stopped: at the packet `visit` stopped on, at an unfinished packet at the
 * end (or bytes.length), or -1 when `bytes` holds no sync byte.
 */
export function eachTsPacket(bytes: Buffer, visit: (packet: Buffer, at: number) => boolean | void): number {
  let at = bytes.indexOf(SYNC);
  while (at >= 0 && at + TS_PACKET <= bytes.length) {
    if (bytes[at] !== SYNC) {
      at = bytes.indexOf(SYNC, at + 1);
      continue;
    }
    if (visit(bytes.subarray(at, at + TS_PACKET), at)) return at;
    at += TS_PACKET;
  }
  return at;
}

/** The first program's streams, once its PMT is among `bytes`; undefined before. */
export function findProgram(bytes: Buffer): TsProgram | undefined {
  let pmtPid: number | undefined;
  let program: TsProgram | undefined;
  eachTsPacket(bytes, (packet) => {
    const section = sectionStart(packet);
    const pid = ((packet[1]! & 0x1f) << 8) | packet[2]!;
    if (pid === 0 && section?.[0] === 0x00) pmtPid ??= firstPmtPid(section);
    else if (pid === pmtPid && section?.[0] === 0x02) program = programOf(section);
    return program !== undefined;
  });
  return program;
}

/** The section a packet starts (after the pointer field), or null: none starts in it. */
function sectionStart(packet: Buffer): Buffer | null {
  if (!(packet[1]! & 0x40)) return null;
  const afc = (packet[3]! >> 4) & 3;
  if (!(afc & 1)) return null;
  let at = 4 + (afc & 2 ? 1 + packet[4]! : 0);
  if (at >= packet.length) return null;
  at += 1 + packet[at]!;
  return at < packet.length ? packet.subarray(at) : null;
}

/** The section's body (after the 8-byte header, before the CRC), bounded by the bytes there are. */
function body(section: Buffer): Buffer {
  const length = ((section[1]! & 0x0f) << 8) | section[2]!;
  return section.subarray(8, Math.min(section.length, 3 + length - 4));
}

function firstPmtPid(section: Buffer): number | undefined {
  const entries = body(section);
  for (let i = 0; i + 4 <= entries.length; i += 4) {
    const program = entries.readUInt16BE(i);
    if (program !== 0) return ((entries[i + 2]! & 0x1f) << 8) | entries[i + 3]!;
  }
  return undefined;
}

function programOf(section: Buffer): TsProgram {
  const b = body(section);
  const program: TsProgram = { video: null, videoPid: null, audio: null };
  if (b.length < 4) return program;
  let i = 4 + (((b[2]! & 0x0f) << 8) | b[3]!);
  while (i + 5 <= b.length) {
    const type = b[i]!;
    if (program.video === null && VIDEO_TYPES[type]) {
      program.video = VIDEO_TYPES[type];
      program.videoPid = ((b[i + 1]! & 0x1f) << 8) | b[i + 2]!;
    }
    // Channels are in the stream itself: any but Opus is encoded, whatever they are.
    if (AUDIO_TYPES[type]) program.audio ??= { codec: AUDIO_TYPES[type], channels: 2 };
    i += 5 + (((b[i + 3]! & 0x0f) << 8) | b[i + 4]!);
  }
  return program;
}

/**
 * An MPEG-TS stream again from its next video keyframe, for a new ingest run
 * on the same connection: the program tables last seen (PAT, PMT), then every
 * packet from the one that starts the keyframe's PES. A keyframe is a PES
 * start marked random access in its adaptation field (as FFmpeg's and OBS's
 * muxers mark it), or whose first packet holds an H.264 SPS or IDR slice (HEVC:
 * a parameter set or an IRAP picture). Fed in chunks cut anywhere.
 */
export class TsFromKeyframe {
  private carry = Buffer.alloc(0);
  private pat: Buffer | null = null;
  private pmt: Buffer | null = null;
  private pmtPid: number | undefined;
  private open = false;

  /** `tables`: bytes of the stream before (its start, holding the tables the publisher may not send again). */
  constructor(
    private readonly videoPid: number,
    private readonly hevc: boolean,
    tables: Buffer = Buffer.alloc(0),
  ) {
    this.scan(tables, false);
  }

  /** What of `chunk` (with what it held of the last) goes to the ingest: nothing before the keyframe, everything from it. */
  push(chunk: Buffer): Buffer {
    if (this.open) return chunk;
    const bytes = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const at = this.scan(bytes, true);
    if (!this.open) {
      this.carry = at >= 0 && at < bytes.length ? Buffer.from(bytes.subarray(at)) : Buffer.alloc(0);
      return Buffer.alloc(0);
    }
    this.carry = Buffer.alloc(0);
    return Buffer.concat([this.pat!, this.pmt!, bytes.subarray(at)]);
  }

  /** Notes the tables in `bytes`; with `findKeyframe`, stops at the keyframe's first packet (open). Returns where it stopped. */
  private scan(bytes: Buffer, findKeyframe: boolean): number {
    return eachTsPacket(bytes, (packet) => {
      const pid = ((packet[1]! & 0x1f) << 8) | packet[2]!;
      const section = sectionStart(packet);
      if (pid === 0 && section?.[0] === 0x00) {
        this.pat = Buffer.from(packet);
        this.pmtPid = firstPmtPid(section);
      } else if (pid === this.pmtPid && section?.[0] === 0x02) this.pmt = Buffer.from(packet);
      else if (findKeyframe && pid === this.videoPid && this.pat && this.pmt && startsKeyframe(packet, this.hevc)) this.open = true;
      return this.open;
    });
  }
}

/** Whether a video packet starts a keyframe's PES (see TsFromKeyframe). */
export function startsKeyframe(packet: Buffer, hevc: boolean): boolean {
  if (!(packet[1]! & 0x40)) return false;
  const afc = (packet[3]! >> 4) & 3;
  if (afc & 2 && packet[4]! > 0 && packet[5]! & 0x40) return true;
  if (!(afc & 1)) return false;
  const payload = packet.subarray(4 + (afc & 2 ? 1 + packet[4]! : 0));
  for (let i = payload.indexOf(Buffer.from([0, 0, 1]), 9); i >= 0 && i + 3 < payload.length; i = payload.indexOf(Buffer.from([0, 0, 1]), i + 3)) {
    const header = payload[i + 3]!;
    if (!hevc && [5, 7].includes(header & 0x1f)) return true;
    const hevcType = (header >> 1) & 0x3f;
    if (hevc && ((hevcType >= 16 && hevcType <= 21) || (hevcType >= 32 && hevcType <= 34))) return true;
  }
  return false;
}
