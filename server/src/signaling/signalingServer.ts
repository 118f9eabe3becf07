import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../log';
import type { StreamRegistry } from '../streams/streamRegistry';
import { ViewerConnection } from './viewerConnection';

/** A viewer that stops answering pings is gone: its session is closed. */
const HEARTBEAT_MS = 15_000;

export class SignalingServer {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<ViewerConnection>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(server: Server, streams: StreamRegistry, log: Logger) {
    this.wss = new WebSocketServer({ server, path: '/ws', maxPayload: 64 * 1024 });
    this.wss.on('error', (err) => log.error({ err }, 'signaling server error'));
    const alive = new WeakMap<WebSocket, boolean>();
    this.wss.on('connection', (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      const conn = new ViewerConnection(ws, streams, log);
      this.connections.add(conn);
      ws.on('close', () => this.connections.delete(conn));
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

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.connections) c.close();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
