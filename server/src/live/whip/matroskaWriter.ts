/**
 * A live Matroska stream (segment and clusters of unknown size, as a live
 * WebM is) of a WHIP publisher's H.264 and Opus, for FFmpeg to read on a pipe
 * with each frame's time: H.264 as Annex B access units without CodecPrivate
 * (FFmpeg's decoder reads Annex B when no avcC is given, and finds the SPS and
 * PPS in the keyframes), Opus packets as they came. Times are milliseconds.
 * Pure: bytes in, bytes out.
 */

const ID = {
  ebml: 0x1a45dfa3,
  ebmlVersion: 0x4286,
  ebmlReadVersion: 0x42f7,
  ebmlMaxIdLength: 0x42f2,
  ebmlMaxSizeLength: 0x42f3,
  docType: 0x4282,
  docTypeVersion: 0x4287,
  docTypeReadVersion: 0x4285,
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  muxingApp: 0x4d80,
  writingApp: 0x5741,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackUid: 0x73c5,
  trackType: 0x83,
  codecId: 0x86,
  codecPrivate: 0x63a2,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
} as const;

/** An element of unknown size (live: its end is the stream's, or the next element of its level). */
const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
/** A new cluster at least this often: block times are 16-bit offsets from their cluster's. */
const CLUSTER_MS = 5000;

export const VIDEO_TRACK = 1;
export const AUDIO_TRACK = 2;

export class MatroskaWriter {
  private clusterMs: number | null = null;

  constructor(private readonly withAudio: boolean) {}

  /** The EBML header, segment start, info and tracks: what comes first. */
  header(): Buffer {
    const ebml = element(ID.ebml, [
      uintElement(ID.ebmlVersion, 1),
      uintElement(ID.ebmlReadVersion, 1),
      uintElement(ID.ebmlMaxIdLength, 4),
      uintElement(ID.ebmlMaxSizeLength, 8),
      element(ID.docType, [Buffer.from('matroska')]),
      uintElement(ID.docTypeVersion, 4),
      uintElement(ID.docTypeReadVersion, 2),
    ]);
    const info = element(ID.info, [uintElement(ID.timecodeScale, 1_000_000), element(ID.muxingApp, [Buffer.from('pels')]), element(ID.writingApp, [Buffer.from('pels')])]);
    const video = element(ID.trackEntry, [uintElement(ID.trackNumber, VIDEO_TRACK), uintElement(ID.trackUid, VIDEO_TRACK), uintElement(ID.trackType, 1), element(ID.codecId, [Buffer.from('V_MPEG4/ISO/AVC')])]);
    const audio = element(ID.trackEntry, [
      uintElement(ID.trackNumber, AUDIO_TRACK),
      uintElement(ID.trackUid, AUDIO_TRACK),
      uintElement(ID.trackType, 2),
      element(ID.codecId, [Buffer.from('A_OPUS')]),
      element(ID.codecPrivate, [opusHead()]),
      element(ID.audio, [floatElement(ID.samplingFrequency, 48000), uintElement(ID.channels, 2)]),
    ]);
    const tracks = element(ID.tracks, this.withAudio ? [video, audio] : [video]);
    return Buffer.concat([ebml, idBytes(ID.segment), UNKNOWN_SIZE, info, tracks]);
  }

  /** One frame of `track` at `timeMs`, in a new cluster when the current one is too old to hold it. */
  block(track: number, timeMs: number, keyframe: boolean, data: Buffer): Buffer {
    const t = Math.round(timeMs);
    const parts: Buffer[] = [];
    if (this.clusterMs === null || t - this.clusterMs >= CLUSTER_MS || t - this.clusterMs < -0x8000 || (keyframe && track === VIDEO_TRACK && t - this.clusterMs >= 1000)) {
      this.clusterMs = Math.max(0, t);
      parts.push(idBytes(ID.cluster), UNKNOWN_SIZE, uintElement(ID.timecode, this.clusterMs));
    }
    const head = Buffer.alloc(4);
    head[0] = 0x80 | track;
    head.writeInt16BE(Math.max(-0x8000, t - this.clusterMs), 1);
    head[3] = keyframe ? 0x80 : 0;
    parts.push(element(ID.simpleBlock, [head, data]));
    return Buffer.concat(parts);
  }
}

/** Opus's identification header (RFC 7845): stereo, 48 kHz, no pre-skip (a WebRTC stream has none), no gain, mapping family 0. */
function opusHead(): Buffer {
  const h = Buffer.alloc(19);
  h.write('OpusHead', 0, 'latin1');
  h[8] = 1;
  h[9] = 2;
  h.writeUInt16LE(0, 10);
  h.writeUInt32LE(48000, 12);
  return h;
}

function idBytes(id: number): Buffer {
  const bytes: number[] = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from(bytes);
}

/** A size as an EBML variable-length integer, in the fewest bytes. */
function sizeBytes(size: number): Buffer {
  for (let len = 1; len <= 8; len++) {
    if (size < 2 ** (7 * len) - 1) {
      const b = Buffer.alloc(len);
      let v = size;
      for (let i = len - 1; i >= 0; i--) {
        b[i] = v & 0xff;
        v = Math.floor(v / 256);
      }
      b[0]! |= 0x80 >> (len - 1);
      return b;
    }
  }
  throw new RangeError(`element of ${size} bytes`);
}

function element(id: number, payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([idBytes(id), sizeBytes(body.length), body]);
}

function uintElement(id: number, value: number): Buffer {
  const bytes: number[] = [];
  for (let v = value; v > 0 || bytes.length === 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return element(id, [Buffer.from(bytes)]);
}

function floatElement(id: number, value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(value);
  return element(id, [b]);
}
