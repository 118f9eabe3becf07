import { open, readFile, realpath, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';

const HTML_TYPE = 'text/html; charset=utf-8';
const TYPES: Record<string, string> = {
  '.html': HTML_TYPE,
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
};

/** An open regular file: opened before its size is read, so it cannot vanish between the two. */
async function openFile(file: string): Promise<{ fh: FileHandle; size: number } | null> {
  const fh = await open(file, 'r').catch(() => null);
  if (!fh) return null;
  const st = await fh.stat().catch(() => null);
  if (st?.isFile()) return { fh, size: st.size };
  await fh.close();
  return null;
}

/** The file, open, if its real path is inside the folder's: a link in the folder may point anywhere. */
async function openInside(realRoot: string, file: string): Promise<{ fh: FileHandle; size: number } | null> {
  const real = await realpath(file).catch(() => null);
  return real !== null && real.startsWith(realRoot + sep) ? openFile(real) : null;
}

/** Encodings the player's build writes beside each text file (`app.js.br`), in order of preference. */
const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;

/** Whether an Accept-Encoding header accepts `encoding` (named, or by `*`, with a q-value above 0). */
export function acceptsEncoding(header: string | undefined, encoding: string): boolean {
  let named: number | undefined;
  let star: number | undefined;
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((t) => t.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (name === encoding) named = q;
    else if (name === '*') star = q;
  }
  const q = named ?? star ?? 0;
  return Number.isFinite(q) && q > 0;
}

/**
 * Serves the built player; unknown paths get index.html (client-side routes).
 * `decodedPath` is the request path with %-escapes decoded (see requestTarget.ts).
 * `page`: index.html as this node serves it (it says what the node is, playerPage.ts).
 */
export async function serveStatic(root: string, decodedPath: string, req: IncomingMessage, res: ServerResponse, page?: (html: string) => string): Promise<void> {
  const rel = normalize(decodedPath).replace(/^([/\\])+/, '');
  let file = join(root, rel);
  if (!file.startsWith(root + sep) && file !== root) {
    res.writeHead(403).end();
    return;
  }
  const realRoot = await realpath(root).catch(() => root);
  let found = await openInside(realRoot, file);
  if (!found) {
    file = join(root, 'index.html');
    found = await openInside(realRoot, file);
  }
  if (!found) {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('The player is not built: run `npm run build -w client`.\n');
    return;
  }
  if (page && file === join(root, 'index.html')) return servePage(found.fh, page, req, res);
  // A precompressed copy the client accepts goes instead, in its fewer bytes; caches are told the answer varies.
  let encoding: string | undefined;
  for (const c of PRECOMPRESSED) {
    if (!acceptsEncoding(req.headers['accept-encoding'], c.encoding)) continue;
    const compressed = await openInside(realRoot, file + c.suffix);
    if (!compressed) continue;
    await found.fh.close();
    found = compressed;
    encoding = c.encoding;
    break;
  }
  const { fh, size } = found;
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': size,
    'cache-control': rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    ...(encoding ? { 'content-encoding': encoding } : {}),
  });
  if (req.method === 'HEAD') {
    await fh.close();
    res.end();
    return;
  }
  try {
    // pipeline closes the file however the response ends, including a client that goes away mid-download.
    await pipeline(fh.createReadStream(), res);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  }
}

/** index.html rewritten by `page`, uncompressed: its precompressed copies (if any) lack what the node adds, and it is small. */
async function servePage(fh: FileHandle, page: (html: string) => string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const html = Buffer.from(page(await readFile(fh, 'utf8').finally(() => fh.close())));
  res.writeHead(200, { 'content-type': HTML_TYPE, 'content-length': html.length, 'cache-control': 'no-cache' });
  res.end(req.method === 'HEAD' ? undefined : html);
}
