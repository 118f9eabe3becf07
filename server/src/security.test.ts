/**
 * The server as an outsider meets it: the real main.ts in a child process
 * (real FFmpeg, mediasoup worker, WebSockets), probed from 127.0.0.1 with the
 * limits set low. Each probe is one of the security pass's findings.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { childrenOf, signalingClient, startServer, type ServerUnderTest } from './serverUnderTest';

const TOKEN = 'operator-token-for-security-test';
const TURN_SECRET = 'turn-secret-for-security-test';
const dir = mkdtempSync(join(tmpdir(), 'pels-security-'));
const clientDir = join(dir, 'client');
let server: ServerUnderTest;
let base: string;
let logLines: string[];

before(async () => {
  mkdirSync(clientDir);
  writeFileSync(join(clientDir, 'index.html'), '<!doctype html><title>player</title>');
  writeFileSync(join(dir, 'outside.txt'), 'outside the client folder');
  symlinkSync(join(dir, 'outside.txt'), join(clientDir, 'leak.txt'));
  server = await startServer({
    STATE_DIR: join(dir, 'state'),
    CLIENT_DIR: clientDir,
    SOURCE: 'lavfi:testsrc2=size=160x90:rate=15',
    OPERATOR_TOKEN: TOKEN,
    TURN_URL: 'turn:turn.example.org:3478',
    TURN_SECRET,
    MAX_VIEWERS_PER_ADDRESS: '2',
    MAX_SOCKETS_PER_ADDRESS: '3',
    MAX_STREAMS: '2',
    AUTH_FAILURES_PER_MINUTE: '3',
    TURN_CREDENTIALS_PER_MINUTE: '2',
    TRUSTED_PROXIES: '',
  });
  ({ base, logLines } = server);
});

after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const signaling = (headers: Record<string, string> = {}) => signalingClient(base, headers);

/** The HTTP status of a WebSocket upgrade. */
function upgradeStatus(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}${path}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', () => {});
  });
}

test('every answer carries the security headers; HSTS only under TLS', async () => {
  for (const path of ['/', '/api/health', '/api/nothing']) {
    const res = await fetch(`${base}${path}`);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
    assert.equal(res.headers.get('strict-transport-security'), null, path);
  }
});

test('a link in the client folder to a file outside it is not followed', async () => {
  const res = await fetch(`${base}/leak.txt`);
  assert.doesNotMatch(await res.text(), /outside the client folder/);
});

test('a WebSocket upgrade from a foreign page is refused (403); the server\'s own page and non-browsers pass', async () => {
  const host = new URL(base).host;
  assert.equal(await upgradeStatus('/ws', { origin: 'https://evil.example' }), 403);
  assert.equal(await upgradeStatus('/ws/operator', { origin: 'https://evil.example' }), 403);
  assert.equal(await upgradeStatus('/ws', { origin: 'null' }), 403);
  assert.equal(await upgradeStatus('/ws', { origin: `http://${host}` }), 101);
  assert.equal(await upgradeStatus('/ws'), 101);
});

test('one address joins at most its viewer places, and its players cannot take its dashboard place', async () => {
  const conns = [await signaling(), await signaling(), await signaling()];
  try {
    assert.equal(await upgradeStatus('/ws'), 429, 'signaling sockets per address');
    assert.equal(await upgradeStatus('/ws/operator'), 101, 'the dashboard is counted apart');
    const streamId = (await conns[0]!.request('getStreams')).data.streams[0].id;
    for (const c of conns.slice(0, 2)) assert.equal((await c.request('join', { streamId })).ok, true);
    const third = await conns[2]!.request('join', { streamId });
    assert.equal(third.ok, false);
    assert.match(third.error!.message, /at most 2 viewers from one address/);
  } finally {
    for (const c of conns) c.ws.close();
  }
});

test('TURN credentials are minted at most TURN_CREDENTIALS_PER_MINUTE per address; then the other ICE servers only', async () => {
  await new Promise((r) => setTimeout(r, 300)); // the previous test's sockets close
  const c = await signaling();
  try {
    const streamId = (await c.request('getStreams')).data.streams[0].id;
    const turns: number[] = [];
    for (let i = 0; i < 3; i++) {
      assert.equal((await c.request('join', { streamId })).ok, true);
      const t = await c.request('createTransport');
      assert.equal(t.ok, true, JSON.stringify(t));
      turns.push(t.data.iceServers.filter((s: { urls: string | string[] }) => String(s.urls).includes('turn:')).length);
    }
    assert.deepEqual(turns, [1, 1, 0]);
  } finally {
    c.ws.close();
  }
});

test('an oversized signaling message closes the socket and logs one line, without a stack', async () => {
  const c = await signaling();
  const closed = new Promise((r) => c.ws.once('close', r));
  c.ws.send('x'.repeat(200 * 1024));
  await closed;
  await new Promise((r) => setTimeout(r, 300));
  const lines = logLines.filter((l) => l.includes('viewer socket error'));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.doesNotMatch(lines[0]!, /stack|\\n\s+at /);
});

test('operator input: unknown keys, unbounded gains, oversized lavfi and too many streams are refused', async () => {
  const post = (body: unknown) => fetch(`${base}/api/streams`, { method: 'POST', headers: { ...bearer(TOKEN), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const unknown = await post({ source: 'lavfi:testsrc2=size=160x90:rate=15', extra: 1 });
  assert.equal(unknown.status, 400);
  assert.match(await unknown.text(), /extra/);
  const huge = await post({ source: 'lavfi:testsrc2=size=100000x100000:rate=1000' });
  assert.equal(huge.status, 400);
  assert.match(await huge.text(), /up to 4096x2160/);
  const gains = await fetch(`${base}/api/control`, { method: 'PUT', headers: { ...bearer(TOKEN), 'content-type': 'application/json' }, body: JSON.stringify({ alphaKbps: 1e308 }) });
  assert.equal(gains.status, 400);
  const { gains: kept } = (await (await fetch(`${base}/api/control`, { headers: bearer(TOKEN) })).json()) as { gains: { alphaKbps: number } };
  assert.ok(kept.alphaKbps < 1e6);
  assert.equal((await post({ id: 'second', source: 'lavfi:testsrc2=size=160x90:rate=15' })).status, 200);
  const third = await post({ id: 'third', source: 'lavfi:testsrc2=size=160x90:rate=15' });
  assert.equal(third.status, 409);
  assert.match(await third.text(), /MAX_STREAMS/);
});

test("no child of the server (FFmpeg, the encoder, the mediasoup worker) has the operator token or TURN secret in its environment", () => {
  const children = childrenOf(server.proc.pid!);
  const names = children.map((c) => c.name);
  assert.ok(names.includes('ffmpeg') && names.some((n) => n.startsWith('mediasoup')), names.join(', '));
  for (const c of children) {
    const environ = readFileSync(`/proc/${c.pid}/environ`, 'utf8');
    assert.ok(!environ.includes(TOKEN) && !environ.includes(TURN_SECRET), `child ${c.pid} (${c.name})`);
  }
});

test('wrong tokens are limited per address on the API, /metrics and the dashboard: then even the right one waits', async () => {
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base}/api/control`, { headers: bearer(`wrong-token-${i}-0123456789`) })).status, 401);
  const limited = await fetch(`${base}/metrics`, { headers: bearer(TOKEN) });
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/operator`);
  await new Promise((r) => ws.once('open', r));
  const answer = new Promise<string>((r) => ws.once('message', (m) => r(m.toString())));
  ws.send(JSON.stringify({ type: 'hello', token: TOKEN }));
  assert.match(await answer, /too many wrong tokens/);
  ws.close();
});
