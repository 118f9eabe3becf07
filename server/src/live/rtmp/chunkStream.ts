/**
 * RTMP's chunk stream (after the handshake): messages cut into chunks, each
 * with a header that may leave out what the chunk stream's previous one said.
 * ChunkReader reassembles the publisher's messages from bytes as they come;
 * encodeMessage cuts the server's. Pure; malformed input throws RtmpError,
 * and what the reader holds stays bounded: its unfinished messages, over all
 * chunk streams, at most `maxMessageBytes` together (MAX_CHUNK_STREAMS of them).
 */
export class RtmpError extends Error {
  override name = 'RtmpError';
}

export interface RtmpMessage {
  type: number;
  streamId: number;
  /** Milliseconds, as the publisher counts them. */
  timestamp: number;
  payload: Buffer;
}

export const MSG = {
  setChunkSize: 1,
  abort: 2,
  ack: 3,
  userControl: 4,
  windowAckSize: 5,
  setPeerBandwidth: 6,
  audio: 8,
  video: 9,
  amf3Data: 15,
  amf3Command: 17,
  amf0Data: 18,
  amf0Command: 20,
} as const;

/** The largest message taken: a keyframe of a high-rate 4K stream fits. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Publishers use a handful of chunk streams (control, commands, audio, video, data). */
export const MAX_CHUNK_STREAMS = 32;
const MAX_CHUNK_SIZE = 0x7fffffff;
const EXTENDED = 0xffffff;
const HEADER_BYTES = [11, 7, 3, 0] as const;

interface ChunkStreamState {
  timestamp: number;
  /** The last header's timestamp field: a type-3 chunk that starts a message adds it again. */
  delta: number;
  length: number;
  type: number;
  streamId: number;
  /** The last header's timestamp field was the extended marker: type-3 chunks carry 4 more bytes. */
  extended: boolean;
  parts: Buffer[];
  received: number;
}

export class ChunkReader {
  private pending: Buffer = Buffer.alloc(0);
  private chunkSize = 128;
  private readonly streams = new Map<number, ChunkStreamState>();
  /** Bytes of unfinished messages held, over all chunk streams. */
  private held = 0;

  /** `maxMessageBytes`: the largest message, and what all unfinished ones may hold together; the caller may change it (e.g. once a publisher is accepted). */
  constructor(public maxMessageBytes = MAX_MESSAGE_BYTES) {}

  /** The messages completed by `bytes`, in order. */
  push(bytes: Buffer): RtmpMessage[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes;
    const out: RtmpMessage[] = [];
    let at = 0;
    for (;;) {
      const used = this.readChunk(this.pending, at, out);
      if (used === 0) break;
      at += used;
    }
    this.pending = this.pending.subarray(at);
    return out;
  }

  /** Reads one chunk at `at`; 0 when its bytes have not all come yet. */
  private readChunk(buf: Buffer, at: number, out: RtmpMessage[]): number {
    if (at >= buf.length) return 0;
    const b0 = buf[at]!;
    const fmt = b0 >> 6;
    let csid = b0 & 0x3f;
    let o = at + 1;
    if (csid === 0) {
      if (buf.length < o + 1) return 0;
      csid = 64 + buf[o]!;
      o += 1;
    } else if (csid === 1) {
      if (buf.length < o + 2) return 0;
      csid = 64 + buf[o]! + buf[o + 1]! * 256;
      o += 2;
    }
    const headerBytes = HEADER_BYTES[fmt as 0 | 1 | 2 | 3];
    if (buf.length < o + headerBytes) return 0;
    let st = this.streams.get(csid);
    if (!st) {
      if (fmt !== 0) throw new RtmpError(`chunk stream ${csid} starts without a full (type 0) header`);
      if (this.streams.size >= MAX_CHUNK_STREAMS) throw new RtmpError(`more than ${MAX_CHUNK_STREAMS} chunk streams`);
    }
    let field = fmt === 3 ? st!.delta : buf.readUIntBE(o, 3);
    const extended = fmt === 3 ? st!.extended : field === EXTENDED;
    let length = st?.length ?? 0;
    let type = st?.type ?? 0;
    let streamId = st?.streamId ?? 0;
    if (fmt <= 1) {
      length = buf.readUIntBE(o + 3, 3);
      type = buf[o + 6]!;
    }
    if (fmt === 0) streamId = buf.readUInt32LE(o + 7);
    o += headerBytes;
    if (extended) {
      if (buf.length < o + 4) return 0;
      field = buf.readUInt32BE(o);
      o += 4;
    }
    const inProgress = st !== undefined && st.received > 0;
    if (inProgress && fmt !== 3) throw new RtmpError(`chunk stream ${csid}: a new message header before the last message's ${st!.length - st!.received} remaining bytes`);
    if (!inProgress && length > this.maxMessageBytes) throw new RtmpError(`message of ${length} bytes (over ${this.maxMessageBytes})`);
    const remaining = inProgress ? st!.length - st!.received : length;
    const take = Math.min(this.chunkSize, remaining);
    if (buf.length < o + take) return 0;
    // A whole message in one chunk is never held; parts of unfinished ones are, over all chunk streams.
    if (take < remaining && this.held + take > this.maxMessageBytes) throw new RtmpError(`unfinished messages over ${this.maxMessageBytes} bytes held on ${this.streams.size} chunk streams`);
    if (!inProgress) {
      const timestamp = fmt === 0 ? field : ((st?.timestamp ?? 0) + field) >>> 0;
      st = { timestamp, delta: field, length, type, streamId, extended, parts: [], received: 0 };
      this.streams.set(csid, st);
    }
    st = st!;
    st.parts.push(Buffer.from(buf.subarray(o, o + take)));
    st.received += take;
    this.held += take;
    o += take;
    if (st.received === st.length) {
      this.held -= st.received;
      const payload = st.parts.length === 1 ? st.parts[0]! : Buffer.concat(st.parts);
      st.parts = [];
      st.received = 0;
      this.onMessage({ type: st.type, streamId: st.streamId, timestamp: st.timestamp, payload }, out);
    }
    return o - at;
  }

  /** Protocol control messages change how the next chunks read; every message also goes out. */
  private onMessage(m: RtmpMessage, out: RtmpMessage[]): void {
    if (m.type === MSG.setChunkSize) {
      if (m.payload.length < 4) throw new RtmpError('Set Chunk Size message shorter than 4 bytes');
      const size = m.payload.readUInt32BE(0) & MAX_CHUNK_SIZE;
      if (size < 1) throw new RtmpError('chunk size 0');
      this.chunkSize = size;
    } else if (m.type === MSG.abort) {
      if (m.payload.length < 4) throw new RtmpError('Abort message shorter than 4 bytes');
      const st = this.streams.get(m.payload.readUInt32BE(0));
      if (st) {
        this.held -= st.received;
        st.parts = [];
        st.received = 0;
      }
    }
    out.push(m);
  }
}

/** One message as chunks of `chunkSize` on chunk stream `csid` (2..63): a type-0 header, then type-3 continuations. */
export function encodeMessage(csid: number, m: RtmpMessage, chunkSize: number): Buffer {
  const extended = m.timestamp >= EXTENDED;
  const ext = extended ? uint32(m.timestamp) : Buffer.alloc(0);
  const header = Buffer.alloc(12);
  header[0] = csid & 0x3f;
  header.writeUIntBE(extended ? EXTENDED : m.timestamp, 1, 3);
  header.writeUIntBE(m.payload.length, 4, 3);
  header[7] = m.type;
  header.writeUInt32LE(m.streamId, 8);
  const parts: Buffer[] = [header, ext];
  for (let at = 0; at < m.payload.length || at === 0; at += chunkSize) {
    if (at > 0) parts.push(Buffer.from([0xc0 | (csid & 0x3f)]), ext);
    parts.push(m.payload.subarray(at, at + chunkSize));
    if (m.payload.length === 0) break;
  }
  return Buffer.concat(parts);
}

export function uint32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
}
