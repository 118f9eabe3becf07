import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody, ErrorCode } from '@pels/shared/protocol/signaling';
import { RequestError } from '../errors';
import type { Logger } from '../log';
import { parseRequestTarget } from './requestTarget';
import { matchPath, type RouteParams } from './routePath';
import { securityHeaders } from './securityHeaders';
import { serveStatic } from './staticFiles';

/**
 * An API route: answers with a JSON body (status 200), a TextBody, an
 * HttpAnswer, or throws a RequestError. `path` may hold `:name` segments, given
 * to the handler as params. Paths outside /api/ (e.g. /metrics) are routes too
 * when listed. `headers` go on every answer of the route, errors included.
 */
export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';
  path: string;
  handler: (req: IncomingMessage, params: RouteParams) => Promise<unknown> | unknown;
  headers?: Readonly<Record<string, string>>;
}

/** A non-JSON answer (e.g. Prometheus' text format). */
export class TextBody {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}

/** An answer with a status and headers of its own (WHIP's 201 Created with its Location), and a body or none. */
export class HttpAnswer {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly body?: TextBody,
  ) {}
}

const STATUS: Record<ErrorCode, number> = { bad_request: 400, unauthorized: 401, rate_limited: 429, not_found: 404, invalid_state: 409, unavailable: 503, internal: 500 };
const MAX_BODY_BYTES = 64 * 1024;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** Reads a request body as UTF-8 text (at most 64 KiB). */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RequestError('bad_request', `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a JSON request body (at most 64 KiB). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError('bad_request', 'request body is not valid JSON');
  }
}

/**
 * How long a client may take to send its request: the headers within 10 s, all
 * of it within 30 s (an API body or a WHIP offer is a few kilobytes), checked
 * each second. Node's defaults (60 s and 300 s, checked every 30 s) let a
 * client that sends its headers a byte at a time hold a connection, and one of
 * the server's fds, for minutes. A WebSocket, once upgraded, is not bound by them.
 * An idle kept-alive connection is closed after 30 s, not Node's 5: a client
 * that sends its next request on it as the server closes it gets a reset, and an
 * API client (a script, a test) calling every few seconds met that race.
 */
export const REQUEST_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000, keepAliveTimeout: 30_000 } as const;

/** A plain HTTP server answering with httpHandler. */
export function createHttpServer(routes: readonly Route[], clientDir: string, log: Logger, page?: (html: string) => string): Server {
  return createServer(REQUEST_TIMEOUTS, httpHandler(routes, clientDir, log, { tls: false, page }));
}

/**
 * The HTTP side, for an HTTP or HTTPS server: the JSON API under /api (errors
 * as `{ error: { code, message } }` with the matching status) and the built
 * player for everything else. `connectOrigins`: the other nodes of a cluster, which its pages may connect to;
 * `page`: the player's page (index.html) as this node serves it.
 */
export function httpHandler(
  routes: readonly Route[],
  clientDir: string,
  log: Logger,
  o: { tls: boolean; connectOrigins?: () => readonly string[]; page?: (html: string) => string },
): RequestListener {
  const fixed = securityHeaders(o.tls);
  return (req, res) => {
    const other = o.connectOrigins?.() ?? [];
    const headers = other.length ? securityHeaders(o.tls, other) : fixed;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    const target = parseRequestTarget(req.url);
    const handle = async (): Promise<void> => {
      if (!target) return json(res, 400, { error: { code: 'bad_request', message: 'malformed request target' } });
      const { path } = target;
      const matching = routes.flatMap((route) => {
        const params = matchPath(route.path, path);
        return params ? [{ route, params }] : [];
      });
      if (path.startsWith('/api/') || matching.length) {
        if (!matching.length) return json(res, 404, { error: { code: 'not_found', message: `no API at ${path}` } });
        const found = matching.find((m) => m.route.method === req.method);
        if (!found) {
          const methods = [...new Set(matching.map((m) => m.route.method))];
          res.setHeader('allow', methods.join(', '));
          return json(res, 405, { error: { code: 'bad_request', message: `use ${methods.join(' or ')}` } });
        }
        for (const [name, value] of Object.entries(found.route.headers ?? {})) res.setHeader(name, value);
        try {
          const body = await found.route.handler(req, found.params);
          if (body instanceof HttpAnswer) {
            const type = body.body ? { 'content-type': body.body.contentType } : {};
            return void res.writeHead(body.status, { ...body.headers, ...type, 'cache-control': 'no-store' }).end(body.body?.text);
          }
          if (body instanceof TextBody) return void res.writeHead(200, { 'content-type': body.contentType, 'cache-control': 'no-store' }).end(body.text);
          return json(res, 200, body);
        } catch (err) {
          if (!(err instanceof RequestError)) throw err;
          if (err.code === 'unauthorized') res.setHeader('www-authenticate', 'Bearer');
          if (err.retryAfterS !== undefined) res.setHeader('retry-after', String(err.retryAfterS));
          return json(res, STATUS[err.code], { error: { code: err.code, message: err.message } });
        }
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: { code: 'bad_request', message: 'use GET' } });
      return serveStatic(clientDir, target.decodedPath, req, res, o.page);
    };
    handle().catch((err: unknown) => {
      log.error({ err, path: target?.path }, 'http request failed');
      if (!res.headersSent) json(res, 500, { error: { code: 'internal', message: 'internal error' } });
      else res.destroy();
    });
  };
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * WebSocket upgrades by exact path (the player's signaling, the dashboard's
 * feed); any other path is refused, so no socket is left hanging.
 */
export function routeUpgrades(server: Server, handlers: Record<string, UpgradeHandler>, log: Logger): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {}); // a peer that resets mid-handshake is not the server's error
    const target = parseRequestTarget(req.url);
    const handler = target && Object.hasOwn(handlers, target.path) ? handlers[target.path] : undefined;
    if (!handler) return refuseUpgrade(socket, target ? 404 : 400);
    try {
      handler(req, socket, head);
    } catch (err) {
      // An upgrade runs outside any request handler: a throw here would end the process.
      log.error({ err, path: target!.path }, 'upgrade failed');
      socket.destroy();
    }
  });
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests' };

/**
 * Answers an upgrade request with an HTTP error instead of a WebSocket (with
 * an API error body when given) and closes the connection once it is out.
 */
export function refuseUpgrade(socket: Duplex, status: 400 | 403 | 404 | 429, extra: { headers?: Record<string, string>; error?: ErrorBody } = {}): void {
  const body = extra.error ? JSON.stringify({ error: extra.error }) : '';
  const headers = { ...extra.headers, ...(body ? { 'content-type': 'application/json' } : {}), 'content-length': String(Buffer.byteLength(body)) };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nconnection: close\r\n${head}\r\n${body}`, () => socket.destroy());
}
