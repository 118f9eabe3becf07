import type { types as ms } from 'mediasoup';
import { WebSocket } from 'ws';
import { parseJsonMessage } from '@pels/shared/protocol/dashboard';
import type { Logger } from '../log';
import { SERVER_TRANSPORT } from '../metrics/mediasoupWorkers';
import type { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import type { Stream } from '../streams/stream';
import type { Upstream } from '../streams/streamIngest';
import type { StreamRegistry } from '../streams/streamRegistry';
import { clusterSocketUrl } from './clusterSettings';
import { parseRtpPacket } from '../rtp/rtpPacket';
import { FrameAssembler } from './frameAssembler';
import type { PipeListen } from './originFeed';
import { PipedIngest } from './pipedIngest';
import { originMessageSchema, type EdgeMessage, type OriginMessage, type StreamSummary } from './pipeProtocol';

const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 10_000;

export interface EdgeLinkOptions {
  /** The origin to connect to now (ORIGIN_URL, or the registry's); null: none known yet, asked again later. */
  origin: () => Promise<URL | null>;
  token: string;
  streams: StreamRegistry;
  media: MediaWorkerPool;
  listen: PipeListen;
  /** The edge's stream for one of the origin's (its frames and rows from `upstream`), not yet started. */
  makeStream: (summary: StreamSummary, upstream: Upstream, origin: URL) => Stream;
  log: Logger;
}

/** The pipe of one stream on this edge: a router of its own, the PipeTransport from the origin, a consumer per rendition into node. */
interface Pipe {
  router: ms.Router;
  transport: ms.PipeTransport;
}

interface EdgeStream {
  ingest: PipedIngest;
  /** The origin's last word on the stream's state. */
  originState: StreamSummary['state'];
  pipe: Pipe | null;
}

/**
 * ROLE=edge: the edge's link to its origin. It keeps a socket open to the origin's /cluster/ws (reopened
 * with backoff), serves every stream the origin lists (a Stream here whose ingest is the pipe), and pipes
 * each once: its PipeTransport (SRTP, RTX) is given to the origin, the origin answers with its own and the
 * renditions' and the sound's producers, which are produced here and consumed on a DirectTransport into
 * node, where the frames are put back together and given to the stream as an encoder's would be, and the
 * sound's packets as FFmpeg's would be. While the origin cannot be reached its streams are `failed` with
 * that reason; viewers stay, and frames resume with the pipe. A pipe lost with a media worker (here, or the
 * origin's: it says `unpiped`) is asked for again.
 */
export class EdgeLink {
  private ws: WebSocket | null = null;
  private readonly edgeStreams = new Map<string, EdgeStream>();
  private backoffMs = RECONNECT_MIN_MS;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** The origin's messages are acted on one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  /** The origin of the last connection (or attempt). */
  private originUrl: URL | null = null;
  private toldNoOrigin = false;

  constructor(private readonly opts: EdgeLinkOptions) {}

  start(): void {
    this.connect();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.ws?.terminate();
    for (const id of [...this.edgeStreams.keys()]) this.dropStream(id);
  }

  private connect(): void {
    void this.opts.origin().catch(() => null).then((url) => {
      if (this.closed) return;
      if (!url) {
        if (!this.toldNoOrigin) this.opts.log.warn('no origin known yet (none in the registry): the edge waits for one');
        this.toldNoOrigin = true;
        return this.again();
      }
      this.toldNoOrigin = false;
      this.open(url);
    });
  }

  private again(): void {
    this.retry = setTimeout(() => this.connect(), this.backoffMs);
    this.backoffMs = Math.min(RECONNECT_MAX_MS, this.backoffMs * 2);
  }

  private open(url: URL): void {
    const { log } = this.opts;
    const origin = url.origin;
    this.originUrl = url;
    const ws = new WebSocket(clusterSocketUrl(url), { headers: { authorization: `Bearer ${this.opts.token}` }, maxPayload: 8 * 1024 * 1024 });
    this.ws = ws;
    ws.on('open', () => {
      this.backoffMs = RECONNECT_MIN_MS;
      log.info({ origin }, 'connected to the origin');
    });
    ws.on('unexpected-response', (_req, res) => {
      log.error({ origin, status: res.statusCode }, res.statusCode === 401 ? 'the origin refused CLUSTER_TOKEN' : 'the origin refused the edge');
      ws.terminate();
    });
    ws.on('error', (err) => log.warn({ origin, err: err.message }, 'origin socket error'));
    ws.on('message', (data) => {
      const parsed = parseJsonMessage<OriginMessage>(originMessageSchema, data.toString());
      if (!parsed.ok) return log.warn({ problem: parsed.message }, 'a message from the origin is not understood');
      this.queue = this.queue.then(() => this.onMessage(parsed.value)).catch((err: unknown) => log.error({ err }, 'cannot act on a message from the origin'));
    });
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const [id, s] of this.edgeStreams) {
        this.closePipe(s);
        s.ingest.setState('failed', `the origin ${origin} is unreachable`);
        log.warn({ stream: id }, 'the origin is unreachable: the stream waits for it');
      }
      if (!this.closed) this.again();
    });
  }

  private async onMessage(m: OriginMessage): Promise<void> {
    switch (m.type) {
      case 'streams':
        return this.onStreams(m.streams);
      case 'piped':
        return this.onPiped(m);
      case 'quality':
        return this.edgeStreams.get(m.stream)?.ingest.qualityRows(m.rendition, m.frames);
      case 'unpiped':
        return this.repipe(m.stream);
      case 'error':
        this.opts.log.error({ stream: m.stream, problem: m.message }, 'the origin refused a request');
        if (m.stream) this.edgeStreams.get(m.stream)?.ingest.setState('failed', `the origin refused the pipe: ${m.message}`);
    }
  }

  private async onStreams(list: readonly StreamSummary[]): Promise<void> {
    const listed = new Set(list.map((s) => s.id));
    for (const id of [...this.edgeStreams.keys()]) if (!listed.has(id)) this.dropStream(id);
    for (const summary of list) {
      const s = this.edgeStreams.get(summary.id) ?? (await this.addStream(summary));
      if (!s) continue;
      s.originState = summary.state;
      s.ingest.setAudioPlan(summary.audio);
      // The origin's state while the pipe is up (or being set up).
      if (s.pipe) s.ingest.setState(summary.state);
      else await this.openPipe(summary.id, s);
    }
  }

  private async addStream(summary: StreamSummary): Promise<EdgeStream | null> {
    const { streams, log } = this.opts;
    if (streams.has(summary.id)) {
      log.error({ stream: summary.id }, 'a stream of the origin has the id of a stream of this edge: not served');
      return null;
    }
    const s: EdgeStream = { ingest: new PipedIngest(), originState: summary.state, pipe: null };
    const stream = this.opts.makeStream(summary, { ingest: s.ingest, onQualityRows: (listener) => s.ingest.onRows(listener) }, this.originUrl!);
    this.edgeStreams.set(summary.id, s);
    streams.add(stream);
    await stream.start();
    log.info({ stream: summary.id }, 'serving a stream of the origin');
    return s;
  }

  private dropStream(id: string): void {
    const s = this.edgeStreams.get(id);
    if (!s) return;
    this.edgeStreams.delete(id);
    this.closePipe(s);
    if (this.opts.streams.has(id)) this.opts.streams.remove(id);
  }

  /** The edge's half of the pipe, offered to the origin. */
  private async openPipe(id: string, s: EdgeStream): Promise<void> {
    const router = await this.opts.media.createRouter(0);
    const { listen } = this.opts;
    const transport = await router
      .createPipeTransport({
        listenInfo: { protocol: 'udp', ip: listen.ip, ...(listen.announcedAddress ? { announcedAddress: listen.announcedAddress } : {}) },
        enableSrtp: true,
        enableRtx: true,
        appData: SERVER_TRANSPORT,
      })
      .catch((err: unknown) => {
        router.close();
        throw err;
      });
    if (this.edgeStreams.get(id) !== s || !this.ws || s.pipe) return void router.close();
    s.pipe = { router, transport };
    this.send({ type: 'pipe', stream: id, tuple: { ip: transport.tuple.localAddress, port: transport.tuple.localPort }, srtp: transport.srtpParameters! });
  }

  /** The origin's half: connect, produce its renditions here, consume them into node. */
  private async onPiped(m: Extract<OriginMessage, { type: 'piped' }>): Promise<void> {
    const s = this.edgeStreams.get(m.stream);
    const pipe = s?.pipe;
    if (!s || !pipe) return;
    const { router, transport } = pipe;
    await transport.connect({ ip: m.tuple.ip, port: m.tuple.port, srtpParameters: m.srtp as ms.SrtpParameters });
    const direct = await router.createDirectTransport({ appData: SERVER_TRANSPORT });
    const consumers: ms.Consumer[] = [];
    const { ticksPerFrame, frameRate } = this.opts.streams.get(m.stream).publicInfo();
    for (const [r, piped] of m.renditions.entries()) {
      const producer = await transport.produce({ id: piped.producerId, kind: 'video', rtpParameters: piped.rtpParameters as unknown as ms.RtpParameters });
      const consumer = await direct.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
      const assembler = new FrameAssembler(ticksPerFrame, m.originIndex);
      consumer.on('rtp', (packet) => {
        const frame = assembler.push(packet);
        if (frame) s.ingest.frame(r, frame);
      });
      consumers.push(consumer);
    }
    const producer = await transport.produce({ id: m.audio.producerId, kind: 'audio', rtpParameters: m.audio.rtpParameters as unknown as ms.RtpParameters });
    const sound = await direct.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities });
    sound.on('rtp', (packet) => {
      const rtp = parseRtpPacket(packet);
      if (rtp && rtp.payload.length) s.ingest.audio(rtp.timestamp, rtp.payload);
    });
    if (s.pipe !== pipe) return;
    const keyframe = (r: number) => void consumers[r]?.requestKeyFrame().catch(() => {});
    s.ingest.pipeUp({ originIndex: m.originIndex, audioTimestampBase: m.audio.timestampBase, frameRate }, keyframe);
    // Each rendition's run starts at a keyframe.
    consumers.forEach((_, r) => keyframe(r));
    s.ingest.setState(s.originState);
    this.opts.log.info({ stream: m.stream, origin: this.originUrl?.origin, renditions: consumers.length }, 'the stream is piped from the origin');
  }

  /** The streams whose frames come from the origin now: those placement may send viewers to. */
  pipedStreams(): string[] {
    return [...this.edgeStreams].filter(([, s]) => s.ingest.piped).map(([id]) => id);
  }

  /** A pipe lost with a media worker: another is asked for (the socket stays up). */
  private async repipe(id: string): Promise<void> {
    const s = this.edgeStreams.get(id);
    if (!s) return;
    this.closePipe(s);
    await this.openPipe(id, s);
  }

  /** Media worker `index` is back: the pipes on it (worker 0) went with the old one. */
  onMediaWorkerRestarted(index: number): void {
    if (index !== 0 || this.closed) return;
    for (const id of this.edgeStreams.keys()) {
      this.queue = this.queue.then(() => this.repipe(id)).catch((err: unknown) => this.opts.log.error({ err, stream: id }, 'cannot pipe the stream again'));
    }
  }

  private closePipe(s: EdgeStream): void {
    s.ingest.pipeDown();
    s.pipe?.router.close();
    s.pipe = null;
  }

  private send(m: EdgeMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(m));
  }
}
