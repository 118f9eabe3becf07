import { createServer, type Server } from 'node:net';
import type { Logger } from '../../log';
import { RtmpSession, type RtmpSessionDeps } from './rtmpSession';

export interface RtmpServerOptions extends Omit<RtmpSessionDeps, 'log'> {
  port: number;
  host: string;
  /** Connections at once (publishing or not); past it a new one is closed at once. */
  maxConnections: number;
  log: Logger;
}

/** The RTMP listener (RTMP=on): one RtmpSession per connection. */
export class RtmpServer {
  private readonly sessions = new Set<RtmpSession>();

  private constructor(private readonly server: Server) {}

  static async start(o: RtmpServerOptions): Promise<RtmpServer> {
    const server = createServer();
    const self = new RtmpServer(server);
    server.on('connection', (socket) => {
      if (self.sessions.size >= o.maxConnections) {
        o.log.warn({ address: socket.remoteAddress, maxConnections: o.maxConnections }, 'RTMP connection refused: too many connections');
        socket.destroy();
        return;
      }
      const session = new RtmpSession(socket, { admit: o.admit, onMalformed: o.onMalformed, publishTimeoutMs: o.publishTimeoutMs, log: o.log });
      self.sessions.add(session);
      socket.on('close', () => self.sessions.delete(session));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port, o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => o.log.error({ err }, 'RTMP listener error'));
    return self;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  get connections(): number {
    return this.sessions.size;
  }

  close(): void {
    this.server.close();
    for (const s of this.sessions) s.close('the server is stopping');
  }
}
