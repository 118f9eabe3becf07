import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { types as ms } from 'mediasoup';
import { WebSocketServer, type WebSocket } from 'ws';
import { RequestError } from '../errors';
import type { Logger } from '../log';
import type { OperatorAuth } from '../operator/operatorAuth';
import type { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import type { Stream } from '../streams/stream';
import type { StreamRegistry } from '../streams/streamRegistry';
import { OriginFeed, type PipeListen } from './originFeed';
import { parseJsonMessage } from '@pels/shared/protocol/dashboard';
import { edgeMessageSchema, type EdgeMessage, type OriginMessage, type StreamSummary } from './pipeProtocol';

/** The stream list goes to the edges this often when it changed (state, a stream added or removed). */
const LIST_INTERVAL_MS = 1000;
/** An edge that stops answering pings is gone: its pipes are closed. */
const HEARTBEAT_MS = 10_000;

export interface OriginHubOptions {
  streams: StreamRegistry;
  media: MediaWorkerPool;
  listen: PipeListen;
  auth: OperatorAuth;
  log: Logger;
}

/** One edge's socket and what it holds here. */
interface EdgePeer {
  ws: WebSocket;
  /** By stream: the pipe to the edge and its quality subscriptions. */
  pipes: Map<string, { pipe: ms.PipeTransport; unsubscribe: (() => void)[] }>;
  /** Streams whose pipe went with the media worker: the edge is told once the worker is back. */
  lost: Set<string>;
  lastList: string;
  alive: boolean;
}

/**
 * ROLE=origin: the edges' side of the origin. An edge opens /cluster/ws with CLUSTER_TOKEN, is told the
 * streams (and again when they change) and asks for the ones it serves; each is fed once (OriginFeed) and
 * piped to every edge that asked, with its PSNR table rows over the socket. An edge's socket closing
 * closes its pipes; a stream removed closes its feed and, with it, its pipes. A pipe that went with the
 * media worker (its feed's router) is reported to its edge as `unpiped` once the worker is back, so the
 * edge asks again; an edge that asks again for a stream gets a new pipe in place of the old.
 */
export class OriginHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 });
  private readonly peers = new Set<EdgePeer>();
  private readonly feeds = new Map<string, Promise<OriginFeed>>();
  private readonly timer: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: OriginHubOptions) {
    this.wss.on('connection', (ws) => this.onConnection(ws));
    this.timer = setInterval(() => this.tick(), LIST_INTERVAL_MS);
    this.heartbeat = setInterval(() => {
      for (const p of this.peers) {
        if (!p.alive) p.ws.terminate();
        p.alive = false;
        p.ws.ping();
      }
    }, HEARTBEAT_MS);
  }

  /** Takes over an upgrade of /cluster/ws: 401 (or 429) without the cluster token. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closed) return void socket.destroy();
    try {
      this.opts.auth.check(req, 'cluster');
    } catch (err) {
      const status = err instanceof RequestError && err.code === 'rate_limited' ? '429 Too Many Requests' : '401 Unauthorized';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** Edges connected now. */
  get edges(): number {
    return this.peers.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.heartbeat);
    for (const p of [...this.peers]) this.drop(p);
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    for (const f of this.feeds.values()) void f.then((feed) => feed.close(), () => {});
    this.feeds.clear();
  }

  private onConnection(ws: WebSocket): void {
    const peer: EdgePeer = { ws, pipes: new Map(), lost: new Set(), lastList: '', alive: true };
    this.peers.add(peer);
    this.opts.log.info({ edges: this.peers.size }, 'an edge connected');
    ws.on('pong', () => (peer.alive = true));
    ws.on('close', () => {
      this.drop(peer);
      this.opts.log.info({ edges: this.peers.size }, 'an edge went away');
    });
    ws.on('error', (err) => this.opts.log.warn({ err: err.message }, 'edge socket error'));
    ws.on('message', (data, isBinary) => {
      const parsed = isBinary ? { ok: false as const, message: 'binary messages are not taken' } : parseJsonMessage<EdgeMessage>(edgeMessageSchema, data.toString());
      if (!parsed.ok) return this.send(peer, { type: 'error', message: parsed.message });
      this.onMessage(peer, parsed.value).catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.send(peer, { type: 'error', stream: parsed.value.stream, message });
      });
    });
    this.sendList(peer);
  }

  private async onMessage(peer: EdgePeer, m: EdgeMessage): Promise<void> {
    const { streams } = this.opts;
    if (!streams.has(m.stream)) throw new Error(`no stream ${m.stream}`);
    const stream = streams.get(m.stream);
    const renditions = stream.publicInfo().renditions.length;
    const { pipe, answer } = await (await this.feed(stream, renditions)).pipeTo({ ip: m.tuple.ip, port: m.tuple.port, srtp: m.srtp as ms.SrtpParameters });
    if (peer.ws.readyState !== peer.ws.OPEN || this.closed) return void pipe.close();
    this.unpipe(peer, m.stream);
    const unsubscribe = Array.from({ length: renditions }, (_, r) =>
      stream.subscribeQuality(r, (batch) => this.send(peer, { type: 'quality', stream: m.stream, rendition: r, frames: batch.frames })),
    );
    peer.pipes.set(m.stream, { pipe, unsubscribe });
    peer.lost.delete(m.stream);
    pipe.observer.once('close', () => {
      if (peer.pipes.get(m.stream)?.pipe !== pipe) return;
      this.unpipe(peer, m.stream);
      // Not closed by the hub, the edge or the stream's removal: its media worker died.
      if (!this.closed && this.peers.has(peer) && streams.has(m.stream)) peer.lost.add(m.stream);
    });
    this.send(peer, answer);
    this.opts.log.info({ stream: m.stream }, 'a stream is piped to an edge');
  }

  /** The stream's feed, made at the first edge's request (again when its router went with its worker). */
  private feed(stream: Stream, renditions: number): Promise<OriginFeed> {
    const held = this.feeds.get(stream.id);
    if (held) return held;
    const feed = OriginFeed.create(stream, renditions, this.opts.media, this.opts.listen, this.opts.log);
    this.feeds.set(stream.id, feed);
    const forget = () => {
      if (this.feeds.get(stream.id) === feed) this.feeds.delete(stream.id);
    };
    feed.then((f) => (f.closed ? forget() : f.onClose(forget)), forget);
    return feed;
  }

  /** Forgets the edge's pipe of the stream (closing it, if it is open). */
  private unpipe(peer: EdgePeer, stream: string): void {
    const held = peer.pipes.get(stream);
    if (!held) return;
    peer.pipes.delete(stream);
    held.unsubscribe.forEach((u) => u());
    held.pipe.close();
  }

  /** A media worker is back: the edges whose pipes it took ask again (the feeds are on worker 0). */
  onMediaWorkerRestarted(index: number): void {
    if (index !== 0) return;
    for (const p of this.peers) {
      for (const stream of p.lost) this.send(p, { type: 'unpiped', stream });
      p.lost.clear();
    }
  }

  private drop(peer: EdgePeer): void {
    if (!this.peers.delete(peer)) return;
    for (const stream of [...peer.pipes.keys()]) this.unpipe(peer, stream);
  }

  /** Feeds of streams that are gone are closed (their pipes with them); every edge is sent the list if it changed. */
  private tick(): void {
    for (const [id, feed] of this.feeds) {
      if (this.opts.streams.has(id)) continue;
      this.feeds.delete(id);
      void feed.then((f) => f.close(), () => {});
    }
    for (const p of this.peers) this.sendList(p);
  }

  private sendList(peer: EdgePeer): void {
    const streams: StreamSummary[] = this.opts.streams.all().map((s) => {
      const i = s.publicInfo();
      return { id: i.id, name: i.name, state: i.state, width: i.width, height: i.height, renditions: i.renditions, frameRate: i.frameRate, ticksPerFrame: i.ticksPerFrame, audio: s.currentAudioPlan };
    });
    const text = JSON.stringify(streams);
    if (text === peer.lastList) return;
    peer.lastList = text;
    this.send(peer, { type: 'streams', streams });
  }

  private send(peer: EdgePeer, m: OriginMessage): void {
    if (peer.ws.readyState === peer.ws.OPEN) peer.ws.send(JSON.stringify(m));
  }
}
