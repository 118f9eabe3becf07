import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ErrorCode } from '@pels/shared/protocol/signaling';
import { RequestError } from '../errors';
import type { Logger } from '../log';
import { serveStatic } from './staticFiles';

/** An API route: answers with a JSON body (status 200) or throws a RequestError. */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  handler: (req: IncomingMessage) => Promise<unknown> | unknown;
}

const STATUS: Record<ErrorCode, number> = { bad_request: 400, not_found: 404, invalid_state: 409, unavailable: 503, internal: 500 };
const MAX_BODY_BYTES = 64 * 1024;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** Reads a JSON request body (at most 64 KiB). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RequestError('bad_request', `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestError('bad_request', 'request body is not valid JSON');
  }
}

/**
 * The HTTP side: the JSON API under /api (errors as `{ error: { code, message } }`
 * with the matching status) and the built player for everything else.
 */
export function createHttpServer(routes: readonly Route[], clientDir: string, log: Logger): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handle = async (): Promise<void> => {
      if (path.startsWith('/api/')) {
        const matching = routes.filter((r) => r.path === path);
        if (!matching.length) return json(res, 404, { error: { code: 'not_found', message: `no API at ${path}` } });
        const route = matching.find((r) => r.method === req.method);
        if (!route) {
          res.setHeader('allow', matching.map((r) => r.method).join(', '));
          return json(res, 405, { error: { code: 'bad_request', message: `use ${matching.map((r) => r.method).join(' or ')}` } });
        }
        try {
          return json(res, 200, await route.handler(req));
        } catch (err) {
          if (err instanceof RequestError) return json(res, STATUS[err.code], { error: { code: err.code, message: err.message } });
          throw err;
        }
      }
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
