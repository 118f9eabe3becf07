/**
 * One RTMP connection, as a publisher (OBS, FFmpeg) makes it: the handshake,
 * `connect` to the application `live`, `createStream`, then `publish` with
 * the stream key as the stream name. The key is checked at `publish`, before
 * any media is taken: audio or video before an accepted publish ends the
 * connection. Once accepted, the publisher's audio, video and metadata go on
 * as FLV tags to its live stream's ingest (FFmpeg reads them); those before
 * its first video frame are held until it comes, so the ingest knows whether
 * sound comes with the video (AAC is decoded and sent as Opus). This server takes publishers only.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { ProbedAudio } from '../../ingest/sourceSpec';
import type { Logger } from '../../log';
import { PublishRefused } from '../publishGate';
import type { Publisher, PublishTarget } from '../publisher';
import { decodeAmf0, encodeAmf0, firstValueLength, type Amf0Value } from './amf0';
import { ChunkReader, encodeMessage, MAX_MESSAGE_BYTES, MSG, RtmpError, uint32, type RtmpMessage } from './chunkStream';
import { flvHeader, flvTag } from './flvTags';
import { MediaArrivals, RTMP_WRAP_MS } from '../mediaArrivals';
import { MediaBacklog } from '../mediaBacklog';
import { INGEST_MAX_BEHIND_MS, StaleMediaSkip, type MediaKind } from '../staleMediaSkip';

/** The application publishers connect to: rtmp://host/live/<stream key>. */
export const RTMP_APP = 'live';
const HANDSHAKE_BYTES = 1536;
const OUT_CHUNK_SIZE = 4096;
const WINDOW_BYTES = 5_000_000;
const PUBLISH_STREAM_ID = 1;
/** Until its publish is accepted a connection sends commands only (a few hundred bytes): an unknown peer holds no more of the server's memory than this. */
const COMMAND_BYTES = 64 * 1024;
/** After a refusal or a close, the answer has this long to leave before the socket is destroyed. */
const LINGER_MS = 1000;
/** What is held before the first video frame, and the ingest's input buffer. */
const MEDIA_BUFFER_BYTES = 512 * 1024;

export interface RtmpSessionDeps {
  /** The live stream a key publishes to; throws PublishRefused. */
  admit: (address: string, key: string) => PublishTarget;
  /** A connection ended by a protocol error (bad handshake, malformed chunks or commands). */
  onMalformed: () => void;
  /** Connect to publish, at most. */
  publishTimeoutMs: number;
  log: Logger;
}

type Phase = 'c0c1' | 'c2' | 'chunks' | 'closed';

interface Pending {
  stream: PublishTarget;
  /** FLV tags held until the first video frame (made then: codec headers and metadata take its timestamp). */
  tags: { type: 8 | 9 | 18; timestamp: number; data: Buffer; header: boolean }[];
  bytes: number;
  audio: ProbedAudio | null;
}

/** FLV's sound formats (the high nibble of an audio tag's first byte, `audiocodecid` in the metadata) by name; Opus is not among them. */
/** An FLV tag's header and trailing size, around its data. */
const FLV_TAG_OVERHEAD = 15;

const FLV_AUDIO_CODECS: Record<number, string> = { 0: 'pcm', 1: 'adpcm', 2: 'mp3', 3: 'pcm', 4: 'nellymoser', 5: 'nellymoser', 6: 'nellymoser', 7: 'alaw', 8: 'mulaw', 10: 'aac', 11: 'speex', 14: 'mp3' };

export class RtmpSession {
  private phase: Phase = 'c0c1';
  private handshake: Buffer = Buffer.alloc(0);
  private readonly reader = new ChunkReader(COMMAND_BYTES);
  private connected = false;
  /** Accepted, its media held until its first video frame. */
  private pending: Pending | null = null;
  private arrivals = new MediaArrivals();
  private backlog = new MediaBacklog();
  private publisher: (Publisher & { media: PassThrough }) | null = null;
  private bytesIn = 0;
  private ackedAt = 0;
  private ackWindow = 0;
  private outChunkSize = 128;
  /**
   * What is written to the ingest, and when, once it is behind: past the bound, audio and video are
   * dropped up to the next keyframe after it caught up to half of it, and what follows is written
   * earlier by the span dropped, so the stream stays live rather than late. The connection is never
   * paused: its end must be seen at once.
   */
  private skip = new StaleMediaSkip(INGEST_MAX_BEHIND_MS, RTMP_WRAP_MS);
  /** The publisher's latest codec headers and metadata, by kind: a new ingest run's media starts with them. */
  private readonly headers = new Map<string, { type: 8 | 9 | 18; data: Buffer }>();
  private withAudio = false;
  /** A new ingest run's media waits for the publisher's next keyframe. */
  private resuming = false;
  private readonly timer: NodeJS.Timeout;
  readonly address: string;

  constructor(
    private readonly socket: Socket,
    private readonly d: RtmpSessionDeps,
  ) {
    this.address = (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
    socket.setNoDelay(true);
    socket.on('data', (b: Buffer) => this.onData(b));
    socket.on('close', () => this.onClosed());
    // 'close' follows.
    socket.on('error', () => undefined);
    this.timer = setTimeout(() => this.fail(`no video within ${d.publishTimeoutMs} ms of connecting`), d.publishTimeoutMs);
  }

  /** Ends the connection (the server stops). */
  close(reason: string): void {
    this.end(reason);
  }

  private onData(bytes: Buffer): void {
    if (this.phase === 'closed') return;
    this.bytesIn += bytes.length;
    try {
      if (this.phase !== 'chunks') bytes = this.onHandshake(bytes);
      if (this.phase === 'chunks' && bytes.length) for (const m of this.reader.push(bytes)) this.onMessage(m);
      this.maybeAck();
    } catch (err) {
      if (!(err instanceof RtmpError) && !(err instanceof Error && err.name === 'Amf0Error')) throw err;
      this.d.onMalformed();
      this.fail(err.message);
    }
  }

  /** The simple handshake (version 3, S1 with a zero version, which OBS and FFmpeg take); returns the bytes after it. */
  private onHandshake(bytes: Buffer): Buffer {
    this.handshake = Buffer.concat([this.handshake, bytes]);
    if (this.phase === 'c0c1') {
      // The version is the first byte: a peer that speaks something else is refused at once, not after its C1.
      const version = this.handshake[0]!;
      if (version !== 3) throw new RtmpError(`RTMP version ${version} is not supported (3 is; encrypted RTMPE is not)`);
      if (this.handshake.length < 1 + HANDSHAKE_BYTES) return Buffer.alloc(0);
      const c1 = this.handshake.subarray(1, 1 + HANDSHAKE_BYTES);
      const s1 = Buffer.concat([Buffer.alloc(8), randomBytes(HANDSHAKE_BYTES - 8)]);
      this.socket.write(Buffer.concat([Buffer.from([3]), s1, c1]));
      this.handshake = this.handshake.subarray(1 + HANDSHAKE_BYTES);
      this.phase = 'c2';
    }
    if (this.handshake.length < HANDSHAKE_BYTES) return Buffer.alloc(0);
    const rest = this.handshake.subarray(HANDSHAKE_BYTES);
    this.handshake = Buffer.alloc(0);
    this.phase = 'chunks';
    return rest;
  }

  private onMessage(m: RtmpMessage): void {
    switch (m.type) {
      case MSG.windowAckSize:
        if (m.payload.length < 4) throw new RtmpError('Window Acknowledgement Size message shorter than 4 bytes');
        this.ackWindow = m.payload.readUInt32BE(0);
        return;
      case MSG.amf0Command:
        return this.onCommand(decodeAmf0(m.payload));
      case MSG.amf3Command:
        // An AMF3 command is AMF0 after a format byte.
        return this.onCommand(decodeAmf0(m.payload.subarray(1)));
      case MSG.audio:
      case MSG.video:
      case MSG.amf0Data:
        return this.onMedia(m);
      default:
        // Acknowledgements, user control, bandwidth: nothing a publisher's server needs.
        return;
    }
  }

  private onCommand(values: Amf0Value[]): void {
    const [name, txn, , ...args] = values;
    const id = typeof txn === 'number' ? txn : 0;
    switch (name) {
      case 'connect': {
        const props = values[2];
        const app = props && typeof props === 'object' && !Array.isArray(props) && !(props instanceof Date) ? String(props.app ?? '') : '';
        if (app.replace(/\/+$/, '') !== RTMP_APP) {
          this.command('_error', id, null, status('error', 'NetConnection.Connect.Rejected', `unknown application "${app}": publish to rtmp://<host>/${RTMP_APP}/<stream key>`));
          return this.end(`connect to unknown application "${app}"`);
        }
        this.connected = true;
        this.send(2, MSG.windowAckSize, uint32(WINDOW_BYTES));
        this.send(2, MSG.setPeerBandwidth, Buffer.concat([uint32(WINDOW_BYTES), Buffer.from([2])]));
        this.send(2, MSG.setChunkSize, uint32(OUT_CHUNK_SIZE));
        this.outChunkSize = OUT_CHUNK_SIZE;
        this.command('_result', id, { fmsVer: 'FMS/3,0,1,123', capabilities: 31 }, { ...status('status', 'NetConnection.Connect.Success', 'Connection succeeded.'), objectEncoding: 0 });
        return;
      }
      case 'releaseStream':
      case 'FCPublish':
        this.command('_result', id, null, undefined);
        return;
      case 'createStream':
        this.command('_result', id, null, PUBLISH_STREAM_ID);
        return;
      case 'publish':
        return this.onPublish(args[0]);
      case 'play':
        this.command('onStatus', 0, null, status('error', 'NetStream.Play.Failed', 'this server takes publishers only: watch in the player'));
        return this.end('asked to play');
      case 'FCUnpublish':
      case 'deleteStream':
      case 'closeStream':
        return this.end('the publisher stopped');
      default:
        return;
    }
  }

  private onPublish(name: Amf0Value): void {
    if (!this.connected) throw new RtmpError('publish before connect');
    if (this.publisher || this.pending) throw new RtmpError('a second publish on one connection');
    // OBS and FFmpeg may append a query to the stream name.
    const key = typeof name === 'string' ? name.split('?')[0]! : '';
    let stream: PublishTarget;
    try {
      stream = this.d.admit(this.address, key);
    } catch (err) {
      if (!(err instanceof PublishRefused)) throw err;
      const code = err.reason === 'busy' ? 'NetStream.Publish.BadName' : 'NetStream.Publish.Denied';
      this.command('onStatus', 0, null, status('error', code, err.message), PUBLISH_STREAM_ID);
      return this.end(`publish refused: ${err.message}`);
    }
    // User control StreamBegin, then the status OBS and FFmpeg wait for.
    this.send(2, MSG.userControl, Buffer.concat([Buffer.from([0, 0]), uint32(PUBLISH_STREAM_ID)]));
    this.command('onStatus', 0, null, status('status', 'NetStream.Publish.Start', `publishing to stream ${stream.id}`), PUBLISH_STREAM_ID);
    this.d.log.info({ stream: stream.id, address: this.address }, 'RTMP publisher accepted');
    this.pending = { stream, tags: [], bytes: 0, audio: null };
    this.reader.maxMessageBytes = MAX_MESSAGE_BYTES;
  }

  /**
   * The publisher's first video frame: what it sends is known (metadata and
   * codec headers come first), so its run starts, with its sound if it has any.
   */
  private startPublishing(pending: Pending, firstFrameMs: number): void {
    clearTimeout(this.timer);
    this.pending = null;
    const media = new PassThrough({ highWaterMark: MEDIA_BUFFER_BYTES });
    this.withAudio = pending.audio !== null;
    const header = flvHeader(this.withAudio);
    media.write(header);
    // Publishers send codec headers and metadata at timestamp 0 whatever their frames' (a publisher stamping the
    // wall clock): FFmpeg would read the jump as 0 to the first frame's time, and fill it with copies of that frame.
    for (const t of pending.tags) {
      if (t.header) this.headers.set(headerKey(t.type), t);
      media.write(flvTag(t.type, t.header ? firstFrameMs : t.timestamp, t.data));
    }
    // What came before the first video frame counts as of its time.
    this.skip.next('keyframe', firstFrameMs, 0);
    this.arrivals.note(firstFrameMs, Date.now());
    this.backlog.wrote(header.length + pending.bytes, firstFrameMs);
    this.publisher = {
      protocol: 'rtmp',
      address: this.address,
      input: { kind: 'published', format: 'flv' },
      audio: pending.audio,
      arrivals: this.arrivals,
      media,
      since: Date.now(),
      close: (reason) => this.end(reason),
      resumeMedia: () => this.resumeMedia(),
    };
    pending.stream.attachPublisher(this.publisher);
  }

  /**
   * The ingest's run failed mid-stream and a new one starts on this connection: a new FLV stream, the
   * publisher's codec headers and metadata, then its media from its next keyframe (RTMP cannot ask for
   * one: OBS and FFmpeg send one every 1-2 s). What the failed run had not read goes with its stream.
   */
  private resumeMedia(): void {
    if (this.phase === 'closed' || !this.publisher) return;
    this.publisher.media.destroy();
    this.publisher.media = new PassThrough({ highWaterMark: MEDIA_BUFFER_BYTES });
    this.arrivals = this.publisher.arrivals = new MediaArrivals();
    this.backlog = new MediaBacklog();
    this.skip = new StaleMediaSkip(INGEST_MAX_BEHIND_MS, RTMP_WRAP_MS);
    this.resuming = true;
    this.d.log.info({ address: this.address }, 'RTMP media resumed for a new ingest run: from the next keyframe');
  }

  /** A resumed run's stream begins: the FLV header and the codec headers, at the keyframe's time. */
  private beginResumed(media: PassThrough, keyframeMs: number): void {
    this.resuming = false;
    const tags = [flvHeader(this.withAudio), ...[...this.headers.values()].map((h) => flvTag(h.type, keyframeMs, h.data))];
    for (const t of tags) media.write(t);
    this.backlog.wrote(tags.reduce((n, t) => n + t.length, 0), keyframeMs);
  }

  private onMedia(m: RtmpMessage): void {
    let data = m.payload;
    let metadata: Amf0Value;
    if (m.type === MSG.amf0Data) {
      // `@setDataFrame onMetaData {...}`: FLV keeps the `onMetaData {...}`; other data messages are not media.
      if (decodeAmf0(data)[0] === '@setDataFrame') data = data.subarray(firstValueLength(data));
      const values = decodeAmf0(data);
      if (values[0] !== 'onMetaData') return;
      metadata = values[1];
    }
    const type = m.type as 8 | 9 | 18;
    if (this.pending) return this.beforeFirstFrame(this.pending, m, { type, timestamp: m.timestamp, data, header: type === 18 || isSequenceHeader(m) }, metadata);
    if (!this.publisher) throw new RtmpError('media before an accepted publish');
    const media = this.publisher.media;
    const kind = mediaKind(m);
    if (kind === 'header') this.headers.set(headerKey(type), { type, data });
    if (this.resuming) {
      if (kind !== 'keyframe') return;
      this.beginResumed(media, m.timestamp);
    }
    const wasSkipping = this.skip.isSkipping;
    const ts = this.skip.next(kind, m.timestamp, this.backlog.behindMs(media.writableLength + media.readableLength));
    if (this.skip.isSkipping !== wasSkipping) this.logSkip();
    if (ts === null) return;
    if (kind === 'keyframe' || kind === 'frame') this.arrivals.note(m.timestamp, Date.now(), this.skip.shiftMs);
    const tag = flvTag(type, ts, data);
    media.write(tag);
    this.backlog.wrote(tag.length, ts);
  }

  private logSkip(): void {
    const { skips, dropped, shiftMs } = this.skip;
    if (this.skip.isSkipping) this.d.log.warn({ address: this.address, skips }, 'the ingest is behind the publisher: dropping media up to the next keyframe');
    else this.d.log.info({ address: this.address, dropped, droppedMs: shiftMs }, 'the ingest caught up; the stream goes on from the keyframe, its timestamps closed over the span dropped');
  }

  /** Held until the first video frame, noting the sound the publisher announces (metadata) or sends. */
  private beforeFirstFrame(pending: Pending, m: RtmpMessage, tag: Pending['tags'][number], metadata: Amf0Value): void {
    pending.tags.push(tag);
    pending.bytes += FLV_TAG_OVERHEAD + tag.data.length;
    if (pending.bytes > MEDIA_BUFFER_BYTES) throw new RtmpError(`no video frame in the first ${MEDIA_BUFFER_BYTES} bytes published`);
    if (m.type === MSG.amf0Data) pending.audio ??= announcedAudio(metadata);
    else if (m.type === MSG.audio) pending.audio ??= tagAudio(m.payload);
    else if (m.type === MSG.video && !isSequenceHeader(m)) this.startPublishing(pending, m.timestamp);
  }

  private maybeAck(): void {
    if (this.ackWindow > 0 && this.bytesIn - this.ackedAt >= this.ackWindow) {
      this.ackedAt = this.bytesIn;
      this.send(2, MSG.ack, uint32(this.bytesIn));
    }
  }

  private send(csid: number, type: number, payload: Buffer, streamId = 0): void {
    if (this.phase === 'closed' || this.socket.destroyed) return;
    this.socket.write(encodeMessage(csid, { type, streamId, timestamp: 0, payload }, this.outChunkSize));
  }

  private command(name: string, txn: number, a: Amf0Value, b: Amf0Value, streamId = 0): void {
    this.send(3, MSG.amf0Command, encodeAmf0(name, txn, a, b), streamId);
  }

  /** An orderly end: what was written leaves, then the socket goes. */
  private end(reason: string): void {
    if (this.phase === 'closed') return;
    this.d.log.info({ address: this.address, reason }, 'RTMP connection ended');
    this.finish();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
  }

  /** A protocol error or a timeout: the socket goes at once. */
  private fail(reason: string): void {
    if (this.phase === 'closed') return;
    this.d.log.warn({ address: this.address, reason }, 'RTMP connection refused');
    this.finish();
    this.socket.destroy();
  }

  private onClosed(): void {
    this.finish();
  }

  private finish(): void {
    this.phase = 'closed';
    this.pending = null;
    clearTimeout(this.timer);
    // What the ingest has not read yet is late: its run ends now.
    this.publisher?.media.destroy();
  }
}

function status(level: 'status' | 'error', code: string, description: string): { [key: string]: Amf0Value } {
  return { level, code, description };
}

/** The sound an audio tag carries: its format, and mono or stereo (bit 0). */
function tagAudio(payload: Buffer): ProbedAudio | null {
  if (payload.length < 1) return null;
  const id = payload[0]! >> 4;
  return { codec: FLV_AUDIO_CODECS[id] ?? `flv audio ${id}`, channels: (payload[0]! & 1) + 1 };
}

/** The sound a publisher's metadata announces (`audiocodecid`, `stereo`), or null: none announced. */
function announcedAudio(metadata: Amf0Value): ProbedAudio | null {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata) || metadata instanceof Date) return null;
  const id = metadata.audiocodecid;
  if (typeof id !== 'number') return null;
  return { codec: FLV_AUDIO_CODECS[id] ?? `flv audio ${id}`, channels: metadata.stereo === false ? 1 : 2 };
}

/** Which of the publisher's headers a header tag replaces: its AVC or AAC configuration, or its metadata. */
function headerKey(type: 8 | 9 | 18): string {
  return type === 8 ? 'audio' : type === 9 ? 'video' : 'metadata';
}

/** What an audio, video or data message is to the ingest's skip: metadata passes as codec headers do. */
function mediaKind(m: RtmpMessage): MediaKind {
  if (m.type === MSG.amf0Data || isSequenceHeader(m)) return 'header';
  if (m.type === MSG.audio) return 'audio';
  return isKeyframe(m) ? 'keyframe' : 'frame';
}

/** FLV video data: frame type in the first byte's high nibble (1: keyframe). */
function isKeyframe(m: RtmpMessage): boolean {
  return m.payload.length > 0 && m.payload[0]! >> 4 === 1;
}

/** An AVC or AAC sequence header (the decoder's configuration), which no frame can do without. */
function isSequenceHeader(m: RtmpMessage): boolean {
  if (m.payload.length < 2) return false;
  if (m.type === MSG.video) return (m.payload[0]! & 0x0f) === 7 && m.payload[1] === 0;
  return m.payload[0]! >> 4 === 10 && m.payload[1] === 0;
}
