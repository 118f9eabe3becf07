import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { DASHBOARD_CLOSE, parseDashboardRequest, type DashboardMessage } from '@pels/shared/protocol/dashboard';
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import { RequestError } from '../errors';
import type { Logger } from '../log';
import type { OperatorAuth } from './operatorAuth';

export interface DashboardFeedOptions {
  auth: OperatorAuth;
  /** The client's address, whose wrong tokens are counted. */
  addressOf: (req: IncomingMessage) => string | undefined;
  /** Reads the current state; called once per tick for all dashboards. */
  snapshot: () => OperatorSnapshot;
  log: Logger;
  intervalMs?: number;
}

/** A dashboard has this long to send its hello. */
const HELLO_TIMEOUT_MS = 5000;
/** A dashboard that stops answering pings is dropped. */
const HEARTBEAT_MS = 15_000;
/** A dashboard this far behind (a slow link) skips snapshots until it catches up; the next one is complete anyway. */
const MAX_BUFFERED_BYTES = 1 << 20;

/**
 * The dashboards' live feed (/ws/operator): after a hello with the operator
 * token, a snapshot at once and then every intervalMs. Monitoring only: it
 * reads snapshots, and the timer runs only while a dashboard is connected.
 */
export class DashboardFeed {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
  private readonly subscribers = new Set<WebSocket>();
  private readonly alive = new WeakMap<WebSocket, boolean>();
  private readonly intervalMs: number;
  private tick: NodeJS.Timeout | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: DashboardFeedOptions) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.wss.on('connection', (ws, req: IncomingMessage) => this.onConnection(ws, opts.addressOf(req)));
    this.heartbeat = setInterval(() => this.ping(), HEARTBEAT_MS);
  }

  /** Takes over an HTTP upgrade request for /ws/operator. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closed) return void socket.destroy();
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.stopTicking();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }

  private onConnection(ws: WebSocket, address: string | undefined): void {
    this.alive.set(ws, true);
    ws.on('pong', () => this.alive.set(ws, true));
    ws.on('error', (err) => this.opts.log.debug({ err }, 'dashboard socket error'));
    ws.on('close', () => {
      this.subscribers.delete(ws);
      if (!this.subscribers.size) this.stopTicking();
    });
    const helloTimer = setTimeout(() => reject('unauthorized', 'send {"type":"hello","token":...} first'), HELLO_TIMEOUT_MS);
    const reject = (code: 'unauthorized' | 'bad_request', message: string) => {
      clearTimeout(helloTimer);
      send(ws, { type: 'error', error: { code, message } });
      ws.close(code === 'unauthorized' ? DASHBOARD_CLOSE.unauthorized : DASHBOARD_CLOSE.badMessage, message.slice(0, 120));
    };
    ws.once('message', (data, isBinary) => {
      if (isBinary) return reject('bad_request', 'binary messages are not supported');
      const parsed = parseDashboardRequest(data.toString());
      if (!parsed.ok) return reject('bad_request', parsed.message);
      try {
        this.opts.auth.verify(address, parsed.value.token);
      } catch (err) {
        if (!(err instanceof RequestError)) throw err;
        return reject('unauthorized', err.code === 'rate_limited' ? err.message : 'operator token is not valid');
      }
      clearTimeout(helloTimer);
      // After the hello the dashboard only listens: anything more is a protocol error.
      ws.on('message', () => reject('bad_request', 'only one hello is expected'));
      this.subscribers.add(ws);
      const text = this.snapshotText();
      if (text !== null) ws.send(text);
      this.startTicking();
    });
  }

  private startTicking(): void {
    this.tick ??= setInterval(() => this.broadcast(), this.intervalMs);
  }

  private stopTicking(): void {
    if (this.tick) clearInterval(this.tick);
    this.tick = null;
  }

  /** One serialization for every dashboard; null (logged) if the snapshot fails, so a bug there cannot take the server down. */
  private snapshotText(): string | null {
    try {
      return JSON.stringify({ type: 'snapshot', data: this.opts.snapshot() } satisfies DashboardMessage);
    } catch (err) {
      this.opts.log.error({ err }, 'cannot take a dashboard snapshot');
      return null;
    }
  }

  private broadcast(): void {
    const text = this.snapshotText();
    if (text === null) return;
    for (const ws of this.subscribers) {
      if (ws.readyState === ws.OPEN && ws.bufferedAmount < MAX_BUFFERED_BYTES) ws.send(text);
    }
  }

  private ping(): void {
    for (const ws of this.wss.clients) {
      if (!this.alive.get(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      ws.ping();
    }
  }
}

function send(ws: WebSocket, msg: DashboardMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}
