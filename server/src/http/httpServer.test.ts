import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { createLogger } from '../log';
import { createHttpServer, routeUpgrades } from './httpServer';
import { playerPage } from './playerPage';

const PLAYER_JS = Buffer.from('console.log("player");\n'.repeat(200));
const dir = mkdtempSync(join(tmpdir(), 'pels-http-'));
const bigFile = join(dir, 'big.bin');
let server: Server;
let port: number;
let upgrades = 0;

before(async () => {
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>player</title>');
  writeFileSync(bigFile, Buffer.alloc(32 << 20, 7));
  writeFileSync(join(dir, 'app.js'), PLAYER_JS);
  writeFileSync(join(dir, 'app.js.gz'), gzipSync(PLAYER_JS));
  writeFileSync(join(dir, 'app.js.br'), brotliCompressSync(PLAYER_JS));
  server = createHttpServer([{ method: 'GET', path: '/api/ping', handler: () => ({ pong: true }) }], dir, createLogger('silent'));
  routeUpgrades(server, { '/ws': (_req, socket) => { upgrades++; socket.destroy(); } }, createLogger('silent'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

after(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Sends raw bytes (so any request target can be sent) and returns the status line's code. */
function rawStatus(request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(request));
    s.setTimeout(5000, () => s.destroy());
    let got = '';
    s.setEncoding('latin1').on('data', (d: string) => {
      got += d;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m) {
        resolve(Number(m[1]));
        s.destroy();
      }
    });
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed without a status line: ${JSON.stringify(got)}`)));
  });
}

const get = (target: string) => `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`;
const upgrade = (target: string) =>
  `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

test('malformed request targets get 400 and the server keeps serving', async () => {
  for (const target of ['//', '//?x', '/%E0%A4%A', '/api/%E0%A4%A', '/a%00b']) {
    assert.equal(await rawStatus(get(target)), 400, target);
    assert.equal(await rawStatus(get('/api/ping')), 200, `still serving after ${target}`);
  }
  assert.equal(await rawStatus(get('/')), 200);
  assert.equal(await rawStatus(get('/no/such/page')), 200, 'client-side routes get index.html');
});

test('upgrades with malformed targets get 400, unknown paths 404, and the server keeps serving', async () => {
  for (const target of ['//', '//?x', '/%E0%A4%A']) {
    assert.equal(await rawStatus(upgrade(target)), 400, target);
  }
  assert.equal(await rawStatus(upgrade('/elsewhere')), 404);
  assert.equal(upgrades, 0);
  assert.equal(await rawStatus(get('/api/ping')), 200);
});

/** This process's open descriptors of the big file. */
function openCopies(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === bigFile) n++;
    } catch {
      // closed while listing
    }
  }
  return n;
}

test('a download aborted by the client leaves no file descriptor open', async () => {
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.write(get('/big.bin')));
      s.once('data', () => {
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
  }
  for (let i = 0; i < 50 && openCopies() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(openCopies(), 0);
});

test('the player goes precompressed to clients that accept it, Brotli first, and as it is to those that do not', async () => {
  const fetchJs = async (acceptEncoding?: string) => {
    // fetch would decode the body itself; this reads the bytes as sent.
    return new Promise<{ encoding?: string; vary?: string; body: Buffer }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/app.js', headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject).end();
    });
  };
  const br = await fetchJs('gzip, deflate, br');
  assert.equal(br.encoding, 'br');
  assert.deepEqual(brotliDecompressSync(br.body), PLAYER_JS);
  assert.equal(br.vary, 'accept-encoding');
  const gz = await fetchJs('br;q=0, gzip');
  assert.equal(gz.encoding, 'gzip');
  assert.deepEqual(gunzipSync(gz.body), PLAYER_JS);
  for (const none of [undefined, 'identity', 'gzip;q=0, br;q=0', '*;q=0']) {
    const plain = await fetchJs(none);
    assert.equal(plain.encoding, undefined, String(none));
    assert.deepEqual(plain.body, PLAYER_JS, String(none));
  }
  assert.equal((await fetchJs('*')).encoding, 'br');
});

test("the player's page says whether its node places viewers, on every path that serves it, and no stale precompressed copy goes instead", async () => {
  const pageDir = mkdtempSync(join(tmpdir(), 'pels-page-'));
  const html = '<!doctype html><html><head><title>player</title></head><body></body></html>';
  writeFileSync(join(pageDir, 'index.html'), html);
  writeFileSync(join(pageDir, 'index.html.br'), brotliCompressSync(html));
  const served = async (placement: 'registry' | 'none', path: string, method = 'GET') => {
    const s = createHttpServer([], pageDir, createLogger('silent'), playerPage(placement));
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      const r = await fetch(`http://127.0.0.1:${(s.address() as { port: number }).port}${path}`, { method, headers: { 'accept-encoding': 'br' } });
      return { status: r.status, encoding: r.headers.get('content-encoding'), length: r.headers.get('content-length'), body: await r.text() };
    } finally {
      await new Promise((r) => s.close(r));
    }
  };
  try {
    for (const path of ['/', '/index.html', '/watch?stream=a']) {
      const single = await served('none', path);
      assert.equal(single.status, 200, path);
      assert.equal(single.encoding, null, path);
      assert.match(single.body, /<meta name="pels-placement" content="none" \/>\n<\/head>/, path);
      assert.equal(Number(single.length), Buffer.byteLength(single.body), path);
    }
    assert.match((await served('registry', '/')).body, /<meta name="pels-placement" content="registry" \/>/);
    const head = await served('none', '/', 'HEAD');
    assert.equal(head.body, '');
    assert.equal(Number(head.length), Buffer.byteLength((await served('none', '/')).body));
  } finally {
    rmSync(pageDir, { recursive: true, force: true });
  }
});

test('an idle kept-alive connection still takes a request 8 s later (Node closes it after 5-6 s by default)', async () => {
  const s = connect(port, '127.0.0.1');
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString()));
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  const ping = 'GET /api/ping HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
  s.write(ping);
  await new Promise((r) => setTimeout(r, 8_000));
  assert.equal(s.destroyed, false, 'the server closed the idle connection');
  s.write(ping);
  await new Promise((r) => setTimeout(r, 500));
  s.end();
  await closed;
  assert.equal(text.match(/HTTP\/1\.1 200/g)?.length, 2, text);
});
