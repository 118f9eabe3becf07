import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../log';
import type { StreamRegistry } from '../streams/streamRegistry';
import { serveStatic } from './staticFiles';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** HTTP API errors use the signaling error shape: `{ error: { code, message } }`. */
/** `isReady` gates /api/health, which answers 503 until the server can serve viewers. */
export function createHttpServer(streams: StreamRegistry, clientDir: string, log: Logger, isReady: () => boolean): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handle = async (): Promise<void> => {
      if (path === '/api/health') return isReady() ? json(res, 200, { ok: true }) : json(res, 503, { ok: false });
      if (path === '/api/streams') {
        if (req.method !== 'GET') return json(res, 405, { error: { code: 'bad_request', message: 'use GET' } });
        return json(res, 200, { streams: streams.list() });
      }
      if (path === '/api/viewers') {
        if (req.method !== 'GET') return json(res, 405, { error: { code: 'bad_request', message: 'use GET' } });
        return json(res, 200, { viewers: streams.viewers() });
      }
      if (path.startsWith('/api/')) return json(res, 404, { error: { code: 'not_found', message: `no API at ${path}` } });
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: { code: 'bad_request', message: 'use GET' } });
      return serveStatic(clientDir, req, res);
    };
    handle().catch((err: unknown) => {
      log.error({ err, path }, 'http request failed');
      if (!res.headersSent) json(res, 500, { error: { code: 'internal', message: 'internal error' } });
      else res.destroy();
    });
  });
}
