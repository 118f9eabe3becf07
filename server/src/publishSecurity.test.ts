/**
 * The publishing surfaces as an outsider meets them: the real server with
 * RTMP, SRT and WHIP on, a live stream made over the operator API, probed
 * from loopback addresses (127.0.0.x: each probe its own address, as the
 * limits count them). Each burst of bad input is answered by a clear refusal,
 * counted, and leaves the server's fds and child processes as they were.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { decodeAmf0, encodeAmf0, type Amf0Value } from './live/rtmp/amf0';
import { ChunkReader, encodeMessage, MSG, uint32 } from './live/rtmp/chunkStream';
import { childrenOf, openFds, startServer, type ServerUnderTest } from './serverUnderTest';

const TOKEN = 'operator-token-for-publish-security-test';
const dir = mkdtempSync(join(tmpdir(), 'pels-publish-security-'));
let server: ServerUnderTest;
let rtmpPort: number;
let srtPort: number;
let key: string;

before(async () => {
  server = await startServer({
    STATE_DIR: join(dir, 'state'),
    SOURCE: 'lavfi:testsrc2=size=160x90:rate=15',
    OPERATOR_TOKEN: TOKEN,
    RTMP: 'on',
    RTMP_PORT: '0',
    SRT: 'on',
    SRT_PORT: '0',
    WHIP: 'on',
    RTC_LISTEN_IP: '127.0.0.1',
    MEDIA_WORKERS: '1',
    PUBLISH_KEY_FAILURES_PER_MINUTE: '3',
    PUBLISH_ATTEMPTS_PER_MINUTE: '1000',
  });
  // Steady first: the stream's quality decoders (an FFmpeg per rendition, 2 by default, beside the source's) and their
  // threads start some seconds in; then the fds stay put (3 s unchanged).
  for (let i = 0; i < 600 && childrenOf(server.proc.pid!).filter((c) => c.name === 'ffmpeg').length < 3; i++) await new Promise((r) => setTimeout(r, 100));
  await settled(6);
  rtmpPort = Number(server.ready.rtmpPort);
  srtPort = Number(server.ready.srtPort);
  const made = await operator('POST', '/api/streams', { id: 'show', source: 'live:' });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  key = (made.json as { key: string }).key;
});

after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One HTTP request on its own connection (none kept alive: the server's fds are counted between requests), from `from`. */
function call(method: string, path: string, o: { from?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.base}${path}`);
    const headers = { connection: 'close', ...o.headers };
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, agent: false, headers, ...(o.from ? { localAddress: o.from } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (t: string) => (text += t));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

async function operator(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await call(method, path, { headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: JSON.parse(res.body) };
}

async function metric(name: string): Promise<number> {
  const text = (await call('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}
const refused = (protocol: string, reason: string) => metric(`pels_publish_refused_total{protocol="${protocol}",reason="${reason}"}`);

/** What the server holds of the machine: its open fds and its children. */
function holdings(): { fds: number; children: string } {
  const pid = server.proc.pid!;
  return { fds: openFds(pid), children: childrenOf(pid).map((c) => `${c.name}:${c.pid}`).sort().join(' ') };
}

/** What the server holds once its fds stay put for `readings` half-seconds (a closed connection's fd goes a moment later). */
async function settled(readings = 3): Promise<{ fds: number; children: string }> {
  let last = holdings();
  for (let same = 0, i = 0; same < readings && i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = holdings();
    same = now.fds === last.fds && now.children === last.children ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** What each of the server's fds is (for a failure's message). */
function fdTargets(): string[] {
  const dir = `/proc/${server.proc.pid!}/fd`;
  return readdirSync(dir).map((fd) => {
    try {
      return readlinkSync(`${dir}/${fd}`);
    } catch {
      return 'gone';
    }
  });
}

/**
 * Waits (up to 15 s: an abandoned handshake is closed after 10 s) until the server holds no more fds than at `start`
 * (the module loader may close one of its own meanwhile) and the same children.
 */
async function assertBackTo(start: { fds: number; children: string }, what: string): Promise<void> {
  let now = holdings();
  for (let i = 0; i < 150 && (now.fds > start.fds || now.children !== start.children); i++) {
    await new Promise((r) => setTimeout(r, 100));
    now = holdings();
  }
  assert.ok(now.fds <= start.fds, `${what}: ${now.fds} fds after the burst, ${start.fds} before; open now: ${fdTargets().join(' ')}`);
  assert.equal(now.children, start.children, `${what}: the server's children`);
  assert.equal(server.proc.exitCode, null, `${what}: the server is running`);
  assert.equal((await call('GET', '/api/health')).status, 200, what);
}

/** A TCP connection to the RTMP listener from `from`; resolves once connected. */
function tcp(from: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port: rtmpPort, host: '127.0.0.1', localAddress: from }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Writes `bytes` and resolves when the server closes the connection. */
async function closedAfter(from: string, bytes: Buffer): Promise<void> {
  const s = await tcp(from);
  s.on('error', () => undefined);
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  s.resume();
  s.write(bytes);
  await closed;
}

/** An RTMP client as far as OBS goes before media: the handshake, then commands; `next` resolves with the next command the server sends. */
async function rtmpClient(from: string) {
  const s = await tcp(from);
  s.on('error', () => undefined);
  const reader = new ChunkReader();
  const commands: Amf0Value[][] = [];
  const waiting: ((c: Amf0Value[] | null) => void)[] = [];
  let handshake = 0;
  let shaken: () => void;
  const handshaken = new Promise<void>((r) => (shaken = r));
  s.on('data', (b: Buffer) => {
    if (handshake < 3073) {
      const used = Math.min(b.length, 3073 - handshake);
      handshake += used;
      if (handshake === 3073) {
        s.write(Buffer.alloc(1536));
        shaken();
      }
      b = b.subarray(used);
    }
    for (const m of reader.push(b)) if (m.type === MSG.amf0Command) commands.push(decodeAmf0(m.payload));
    while (commands.length && waiting.length) waiting.shift()!(commands.shift()!);
  });
  s.on('close', () => waiting.splice(0).forEach((w) => w(null)));
  s.write(Buffer.concat([Buffer.from([3]), Buffer.alloc(1536)]));
  await handshaken;
  const send = (...values: Amf0Value[]) => s.write(encodeMessage(3, { type: MSG.amf0Command, streamId: 0, timestamp: 0, payload: encodeAmf0(...values) }, 128));
  const next = () => new Promise<Amf0Value[] | null>((r) => (commands.length ? r(commands.shift()!) : waiting.push(r)));
  return { socket: s, send, next };
}

/** The code of the status a command answer carries (`NetConnection.Connect.Success`, `NetStream.Publish.Denied`, ...). */
const statusCode = (c: Amf0Value[] | null) => String(((c?.[3] ?? {}) as Record<string, Amf0Value>).code);
const statusText = (c: Amf0Value[] | null) => String(((c?.[3] ?? {}) as Record<string, Amf0Value>).description);

/** connect to `app`, createStream, publish `name`: the publish's status, or the connect's when it was refused. */
async function rtmpPublish(from: string, name: string, app = 'live'): Promise<{ code: string; text: string; socket: Socket }> {
  const c = await rtmpClient(from);
  c.send('connect', 1, { app, type: 'nonprivate', tcUrl: `rtmp://127.0.0.1/${app}` });
  const connected = await c.next();
  if (statusCode(connected) !== 'NetConnection.Connect.Success') return { code: statusCode(connected), text: statusText(connected), socket: c.socket };
  c.send('createStream', 2, null);
  await c.next();
  c.send('publish', 3, null, name, 'live');
  const published = await c.next();
  return { code: statusCode(published), text: statusText(published), socket: c.socket };
}

/** POST /whip/<stream> from `from`; the status and body. */
function whip(from: string, stream: string, body: string | Buffer, headers: Record<string, string>) {
  return call('POST', `/whip/${stream}`, { from, body, headers: { 'content-type': 'application/sdp', ...headers } });
}

/** An answer says what is wrong and nothing of the server's insides. */
function assertClear(body: string, what: string): void {
  assert.ok(body.length > 0 && body.length < 800, `${what}: ${body.length} characters`);
  assert.doesNotMatch(body, /\n\s+at |node_modules|\/src\/|\.ts:\d|TypeError|RangeError/, what);
}

const OFFER_START = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n';

test('RTMP: random bytes, truncated and abandoned handshakes, huge chunk sizes and messages, unfinished messages, a wrong app: each connection closed and counted; nothing left behind', async () => {
  const start = await settled();
  const malformedBefore = await refused('rtmp', 'malformed');
  const from = '127.0.0.10';
  const bursts: Promise<void>[] = [];
  // Random bytes: a first byte of 3 starts a handshake, which then waits; the rest is a wrong version.
  for (let i = 0; i < 30; i++) bursts.push(closedAfter(from, Buffer.concat([Buffer.from([i % 3 === 0 ? 6 : 0xff]), randomBytes(i * 150)])));
  await Promise.all(bursts.splice(0));
  const handshake = Buffer.concat([Buffer.from([3]), Buffer.alloc(3072)]);
  const chunkSize = (size: number) => encodeMessage(2, { type: MSG.setChunkSize, streamId: 0, timestamp: 0, payload: uint32(size) }, 128);
  const header = (csid: number, length: number) => {
    const h = Buffer.alloc(12);
    h[0] = csid;
    h.writeUIntBE(length, 4, 3);
    h[7] = MSG.video;
    return h;
  };
  // A chunk size of 2^31-1, then a message of 16 MiB announced.
  bursts.push(closedAfter(from, Buffer.concat([handshake, chunkSize(0x7fffffff), header(4, 0xffffff)])));
  // A chunk size of 0.
  bursts.push(closedAfter(from, Buffer.concat([handshake, chunkSize(0)])));
  // Before any key: a 1 MiB message on a chunk stream, then on others, none finished.
  bursts.push(closedAfter(from, Buffer.concat([handshake, chunkSize(60_000), ...[4, 5, 6].map((c) => Buffer.concat([header(c, 1024 * 1024), Buffer.alloc(60_000)]))])));
  // A type-3 chunk on a chunk stream never started; an AMF0 command that runs past its message.
  bursts.push(closedAfter(from, Buffer.concat([handshake, Buffer.from([0xc5, 1, 2, 3])])));
  bursts.push(closedAfter(from, Buffer.concat([handshake, encodeMessage(3, { type: MSG.amf0Command, streamId: 0, timestamp: 0, payload: Buffer.from([0x02, 0xff, 0xff, 0x41]) }, 128)])));
  await Promise.all(bursts.splice(0));
  assert.equal(await refused('rtmp', 'malformed'), malformedBefore + 35);
  // Handshakes cut short by the client, and others left hanging: the server ends those itself.
  for (let i = 0; i < 5; i++) {
    const s = await tcp(from);
    s.end(Buffer.concat([Buffer.from([3]), Buffer.alloc(700)]));
    s.resume();
  }
  const hanging = await Promise.all(Array.from({ length: 5 }, () => tcp(from)));
  for (const s of hanging) s.write(Buffer.from([3]));
  const hangingClosed = Promise.all(hanging.map((s) => new Promise((r) => (s.resume(), s.once('close', r)))));
  // A wrong application is refused at connect, before any key is asked for.
  const wrongApp = await rtmpPublish(from, key, 'admin');
  assert.equal(wrongApp.code, 'NetConnection.Connect.Rejected');
  assert.match(wrongApp.text, /unknown application "admin"/);
  await hangingClosed;
  await assertBackTo(start, 'RTMP burst');
});

test('WHIP over HTTP: malformed, random and oversized offers and bad headers get a 4xx saying what is wrong, leaking nothing; no session is kept', async () => {
  const start = await settled();
  const from = '127.0.0.11';
  const auth = { authorization: `Bearer ${key}` };
  const cases: [Record<string, string>, string | Buffer, number, RegExp][] = [
    [auth, 'hello', 400, /must start with .*v=0/],
    [auth, `${OFFER_START}`, 400, /no media sections/],
    [auth, `${OFFER_START}m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n`, 400, /no H.264 video/],
    [auth, `${OFFER_START}m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\na=mid:0\r\na=sendonly\r\na=ssrc:1 cname:x\r\n`, 400, /no ICE credentials/],
    [auth, `${OFFER_START}m=video x\r\n`, 400, /malformed m= line/],
    [auth, `${OFFER_START}a=${'x'.repeat(40_000)}\r\n`, 400, /over 32768 bytes/],
    [auth, Buffer.alloc(100 * 1024, 0x41), 400, /request body over/],
    [auth, randomBytes(3000), 400, /bad SDP offer/],
    [{ ...auth, 'content-type': 'text/plain' }, OFFER_START, 400, /Content-Type must be application\/sdp/],
    [{ authorization: 'Basic abc' }, OFFER_START, 401, /no stream key/],
  ];
  for (const [headers, body, status, message] of cases) {
    const res = await whip(from, 'show', body, headers);
    assert.equal(res.status, status, `${message}: ${res.body}`);
    assert.match(res.body, message);
    assertClear(res.body, String(message));
  }
  // 200 random and mutated offers with the right key: each a 400, none a 5xx.
  for (let i = 0; i < 200; i++) {
    const body = i % 2 ? `${OFFER_START}${randomBytes(i * 10).toString('latin1')}` : randomBytes(i * 10).toString('utf8');
    const res = await whip(from, 'show', body, auth);
    assert.equal(res.status, 400, res.body);
    assertClear(res.body, `random offer ${i}`);
  }
  const live = (await operator('GET', '/api/operator/snapshot')).json as { streams: { id: string; live: { publisher: unknown } | null }[] };
  assert.equal(live.streams.find((s) => s.id === 'show')!.live!.publisher, null);
  await assertBackTo(start, 'WHIP burst');
});

test('SRT: random datagrams and malformed streamids are refused in the handshake; the listener keeps running', async () => {
  const start = await settled();
  const udp = createSocket('udp4');
  for (let i = 0; i < 300; i++) udp.send(randomBytes(1 + (i % 1400)), srtPort, '127.0.0.1');
  await new Promise((r) => setTimeout(r, 500));
  udp.close();
  const malformedBefore = await refused('srt', 'malformed');
  const streamIds = ['', '#!::m=request', '#!::r=live/,m=publish', '#!::', `#!::r=${'x'.repeat(400)},m=play`];
  for (const id of streamIds) {
    const code = await new Promise<number | null>((resolve) => {
      const url = `srt://127.0.0.1:${srtPort}?connect_timeout=2000${id ? `&streamid=${id}` : ''}`;
      const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=15:duration=1', '-c:v', 'libx264', '-f', 'mpegts', url], { stdio: 'ignore' });
      ff.on('close', resolve);
    });
    assert.notEqual(code, 0, `streamid ${JSON.stringify(id.slice(0, 20))} was taken`);
  }
  assert.equal(await refused('srt', 'malformed'), malformedBefore + streamIds.length);
  await assertBackTo(start, 'SRT burst');
});

test('wrong keys lock their address out on every protocol, right key or wrong, and are counted; the right key from another address publishes; a rotated-out or revoked key stays refused', async () => {
  const start = await settled();
  const guesser = '127.0.0.20';
  const wrong = randomBytes(32).toString('base64url');
  // Three wrong keys, over three protocols' worth of attempts: WHIP twice, RTMP once.
  for (let i = 0; i < 2; i++) assert.equal((await whip(guesser, 'show', OFFER_START, { authorization: `Bearer ${wrong}` })).status, 401);
  const third = await rtmpPublish(guesser, wrong);
  assert.equal(third.code, 'NetStream.Publish.Denied');
  assert.match(third.text, /unknown stream key/);
  // Now locked out: the right key too, over WHIP (429, Retry-After) and RTMP.
  const locked = await whip(guesser, 'show', OFFER_START, { authorization: `Bearer ${key}` });
  assert.equal(locked.status, 429);
  assert.match(locked.body, /too many wrong stream keys/);
  assert.ok(Number(locked.headers['retry-after']) > 0);
  const lockedRtmp = await rtmpPublish(guesser, key);
  assert.equal(lockedRtmp.code, 'NetStream.Publish.Denied');
  assert.match(lockedRtmp.text, /too many wrong stream keys/);
  assert.equal(await refused('whip', 'locked_out'), 1);
  assert.equal(await refused('rtmp', 'locked_out'), 1);
  // Another address with the right key passes the gate (its offer is then read: a bad one is a 400, not a 401 or 429)...
  const other = await whip('127.0.0.21', 'show', OFFER_START, { authorization: `Bearer ${key}` });
  assert.equal(other.status, 400, other.body);
  assert.match(other.body, /bad SDP offer/);
  // ...and publishes over RTMP.
  const publishing = await rtmpPublish('127.0.0.21', key);
  assert.equal(publishing.code, 'NetStream.Publish.Start');
  publishing.socket.destroy();
  // The key rotated: the old one is refused (a replayed key), the new one taken.
  const rotated = await operator('POST', '/api/streams/show/key');
  assert.equal(rotated.status, 200);
  const newKey = (rotated.json as { key: string }).key;
  assert.equal((await rtmpPublish('127.0.0.22', key)).code, 'NetStream.Publish.Denied');
  const fresh = await rtmpPublish('127.0.0.22', newKey);
  assert.equal(fresh.code, 'NetStream.Publish.Start');
  fresh.socket.destroy();
  // Revoked: no key publishes, the last one included.
  assert.equal((await operator('DELETE', '/api/streams/show/key')).status, 200);
  assert.equal((await rtmpPublish('127.0.0.23', newKey)).code, 'NetStream.Publish.Denied');
  key = newKey;
  await assertBackTo(start, 'key burst');
});

test('signaling: 100 malformed messages and 20 abandoned WebSocket handshakes: each message answered with an error, the handshakes dropped; nothing left behind', async () => {
  const start = await settled();
  const ws = new WebSocket(`${server.base.replace('http', 'ws')}/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const shapes = ['', '{', 'null', '[]', '"x"', '{"id":1}', '{"id":1,"method":"nope"}', '{"id":1,"method":"join","data":{"streamId":7}}', '{"id":"x","method":"join","data":{}}', '{"__proto__":{"x":1},"id":2,"method":"join","data":{"streamId":"nothing-here"}}'];
  // One at a time: more than MAX_PENDING_REQUESTS unanswered would close the socket (its own limit).
  for (let i = 0; i < 100; i++) {
    const answer = new Promise<{ ok: boolean; error?: { code: string; message: string } }>((r) => ws.once('message', (m) => r(JSON.parse(m.toString()))));
    ws.send(i < shapes.length ? shapes[i]! : randomBytes(i).toString('latin1'));
    const a = await answer;
    assert.equal(a.ok, false, `message ${i}`);
    assertClear(a.error!.message, `message ${i}: ${a.error!.message}`);
  }
  ws.close();
  // Upgrades begun and never finished, left open: a request line, some headers, then nothing. The server drops them.
  const url = new URL(server.base);
  const abandoned = await Promise.all(
    Array.from({ length: 20 }, () => new Promise<Socket>((resolve) => {
      const s = connect(Number(url.port), '127.0.0.1', () => {
        s.write('GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n');
        resolve(s);
      });
      s.on('error', () => undefined);
    })),
  );
  // Within REQUEST_TIMEOUTS' 10 s for the headers (and its 1 s check), not Node's minutes.
  let closed = 0;
  const allClosed = Promise.all(abandoned.map((s) => new Promise((r) => (s.resume(), s.once('close', () => r(closed++))))));
  await Promise.race([allClosed, new Promise((r) => setTimeout(r, 20_000))]);
  assert.equal(closed, 20, 'abandoned handshakes the server dropped within 20 s');
  for (const s of abandoned) s.destroy();
  await assertBackTo(start, 'signaling burst');
});
