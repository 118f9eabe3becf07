import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Limits } from '../limits/limits';
import type { Logger } from '../log';
import type { IceSettings } from '../net/iceServers';
import type { MoveNotice } from '@pels/shared/protocol/signaling';
import type { StreamRegistry } from '../streams/streamRegistry';
import { ViewerConnection } from './viewerConnection';

/** A viewer that stops answering pings is gone: its session is closed. */
const HEARTBEAT_MS = 15_000;

/**
 * Players' notifications compressed (permessage-deflate, which browsers offer): the PSNR rows and the viewer state,
 * most of what a player is sent, repeat their keys and neighbours' values, and a viewer on a narrow link shares it
 * with them. A small window per socket (2 kB, compressor memory about 16 kB) keeps most of the gain (docs/scaling.md).
 */
const PLAYER_DEFLATE = {
  serverMaxWindowBits: 11,
  clientMaxWindowBits: 11,
  zlibDeflateOptions: { level: 3, memLevel: 4 },
  threshold: 256,
} as const;

export class SignalingServer {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ViewerConnection>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Set once this node drains: every player, those that connect later too, is told to move. */
  private moving: MoveNotice | undefined;

  constructor(streams: StreamRegistry, limits: Limits, ice: IceSettings, log: Logger, addressOf: (req: IncomingMessage) => string | undefined) {
    // Upgrades arrive through handleUpgrade: the HTTP server routes /ws here and /ws/operator to the dashboard.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: PLAYER_DEFLATE });
    this.wss.on('error', (err) => log.error({ err }, 'signaling server error'));
    const alive = new WeakMap<WebSocket, boolean>();
    this.wss.on('connection', (ws, req: IncomingMessage) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      const conn = new ViewerConnection(ws, streams, limits, ice, log, addressOf(req));
      this.connections.add(conn);
      ws.on('close', () => this.connections.delete(conn));
      if (this.moving) conn.notify({ notification: 'move', data: this.moving });
    });
    this.heartbeat = setInterval(() => {
      for (const ws of this.wss.clients) {
        if (!alive.get(ws)) {
          ws.terminate();
          continue;
        }
        alive.set(ws, false);
        ws.ping();
      }
    }, HEARTBEAT_MS);
  }

  /** Takes over an HTTP upgrade request for /ws. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** This node drains: its players move to other nodes (they ask their front's /api/place again). */
  drain(notice: MoveNotice): void {
    this.moving = notice;
    for (const c of this.connections) c.notify({ notification: 'move', data: notice });
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.connections) c.close();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
