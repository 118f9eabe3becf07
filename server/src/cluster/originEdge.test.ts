/**
 * An origin and an edge as two real server processes on loopback (main.ts each, with its own mediasoup
 * worker and FFmpeg on the origin): the edge serves the origin's stream through the pipe, its frames come
 * in order with their layers and their PSNR rows, and its sound; a keyframe request on the edge reaches the
 * origin's encoder; the pipe comes back after either side's media worker is killed; the origin's death is
 * reported on the edge without a crash or a leak, and its restart (indexes from 0 again) serves the edge's
 * viewers again with the stream's indexes going on.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { freeRtcPort } from '../net/freePorts';
import { childrenOf, signalingClient } from '../serverUnderTest';
import { startRedis, type TestRedis } from './redisServerForTests';
import { ORIGIN_REFUSAL } from './viewerRefusal';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OPERATOR_TOKEN = 'operator-token-for-origin-edge';
const CLUSTER_TOKEN = 'cluster-token-for-origin-edge';
/** The load test's synthetic WebRTC viewers (receivers/, built by npm run setup). */
const RECEIVERS_BIN = join(ROOT, 'receivers/out/pels-receivers');
const dir = mkdtempSync(join(tmpdir(), 'pels-origin-edge-'));

interface Node {
  proc: ChildProcess;
  base: string;
  log: string[];
}

async function startNode(name: string, env: NodeJS.ProcessEnv): Promise<Node> {
  const rtcPort = await freeRtcPort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      RTC_PORT: String(rtcPort),
      MEDIA_WORKERS: '1',
      LOG_LEVEL: 'info',
      STATE_DIR: join(dir, name),
      CLIENT_DIR: dir,
      OPERATOR_TOKEN,
      CLUSTER_TOKEN,
      KEYFRAME_MIN_GAP_MS: '0',
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      REDIS_PASSWORD: redis.password,
      NODE_ID: name,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${log.slice(-5).join('\n')}`)), 60_000);
    for (const s of [proc.stdout!, proc.stderr!]) {
      s.setEncoding('utf8').on('data', (text: string) => {
        for (const line of text.split('\n').filter(Boolean)) {
          log.push(line);
          const m = /"port":(\d+).*serving the player/.exec(line);
          if (m) {
            clearTimeout(timer);
            resolve({ proc, base: `http://127.0.0.1:${m[1]}`, log });
          }
        }
      });
    }
    proc.once('exit', (code) => reject(new Error(`${name} exited (${code}): ${log.slice(-5).join('\n')}`)));
  });
}

let origin: Node;
let edge: Node;
/** The cluster's registry: both nodes register, and share the operator's changes. */
let redis: TestRedis;

const ORIGIN_ENV = { ROLE: 'origin', SOURCE: 'lavfi:testsrc2=size=160x90:rate=30|sine=frequency=1000', VIDEO_KBPS: '300', RENDITIONS: '80x44@60' };
/** Killed origins, whose DSCP tables are left behind. */
const killed: number[] = [];

before(async () => {
  redis = await startRedis();
  origin = await startNode('origin', ORIGIN_ENV);
  // No ORIGIN_URL: the edge takes the origin the registry names.
  edge = await startNode('edge', { ROLE: 'edge' });
});

after(async () => {
  for (const n of [edge, origin]) {
    if (!n || n.proc.exitCode !== null || n.proc.signalCode !== null) continue;
    n.proc.kill('SIGTERM');
    await new Promise((r) => n.proc.once('exit', r));
  }
  // A killed origin could not delete its DSCP table (a server's next start would): this test's own, by its pid.
  for (const pid of killed) await new Promise((r) => execFile('nft', ['delete', 'table', 'inet', `pels_0_pid${pid}`], r));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = { authorization: `Bearer ${OPERATOR_TOKEN}` };

async function snapshot(n: Node): Promise<{ streams: { id: string; state: string; error?: string; framesIngested: number; viewers: number; renditions: unknown[]; layerKbps: { tid0: number; tid1: number; tid2: number } | null; keyframes: { requests: { pli: number; join: number }; forced: number } }[] }> {
  const res = await fetch(`${n.base}/api/operator/snapshot`, { headers: bearer });
  assert.equal(res.status, 200);
  return (await res.json()) as never;
}

async function metric(n: Node, name: string): Promise<number> {
  const text = await (await fetch(`${n.base}/metrics`, { headers: bearer })).text();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${name} in /metrics`);
  return Number(m[1]);
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const signaling = (n: Node) => signalingClient(n.base);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const logged = (n: Node, text: string) => n.log.filter((l) => l.includes(text)).length;

/** A new viewer's PSNR rows on the edge (the last 2 s of them): their indexes are the edge's stream's. */
async function rowIndexes(): Promise<number[]> {
  const viewer = await signaling(edge);
  try {
    const joined = await viewer.request('join', { streamId: (await snapshot(edge)).streams[0]!.id });
    assert.equal(joined.ok, true, JSON.stringify(joined.error));
    return await until('PSNR rows on the edge', async () => {
      const indexes = viewer.notifications.filter((n) => n.notification === 'quality').flatMap((n) => n.data.frames.map((f: { index: number }) => f.index));
      return indexes.length > 20 && indexes;
    });
  } finally {
    viewer.ws.close();
  }
}

function assertInOrder(indexes: number[]): void {
  for (let k = 1; k < indexes.length; k++) assert.ok(indexes[k]! > indexes[k - 1]!, `rows in order: ${indexes[k - 1]} then ${indexes[k]}`);
}

/** The edge's stream takes frames again: more than a second's worth within a second and a half. */
async function framesFlowing(): Promise<void> {
  await until('frames on the edge', async () => {
    const before = (await snapshot(edge)).streams[0]!.framesIngested;
    await sleep(1500);
    const s = (await snapshot(edge)).streams[0]!;
    return s.state === 'running' && s.framesIngested > before + 30;
  }, 45_000);
}

/** Kills the node's media worker (MEDIA_WORKERS=1) and waits for the server to start another. */
async function killMediaWorker(n: Node): Promise<void> {
  const worker = childrenOf(n.proc.pid!).find((c) => c.name.startsWith('mediasoup'));
  assert.ok(worker, 'a media worker');
  process.kill(Number(worker.pid), 'SIGKILL');
  await until('another media worker', async () => childrenOf(n.proc.pid!).some((c) => c.name.startsWith('mediasoup') && c.pid !== worker.pid));
}

test('the origin refuses players with the reason, and edges without the cluster token', async () => {
  const ws = new WebSocket(`${origin.base.replace('http', 'ws')}/ws`);
  const [code, reason] = (await new Promise((r) => ws.once('close', (...a) => r(a)))) as [number, Buffer];
  assert.equal(code, 1008);
  assert.equal(reason.toString(), ORIGIN_REFUSAL);
  const wrong = new WebSocket(`${origin.base.replace('http', 'ws')}/cluster/ws`, { headers: { authorization: 'Bearer not-the-cluster-token-at-all' } });
  wrong.on('error', () => {}); // terminated before it opened
  const status = await new Promise<number>((r) => wrong.once('unexpected-response', (_req, res) => r(res.statusCode!)).once('open', () => r(101)));
  wrong.terminate();
  assert.equal(status, 401);
});

test('an edge socket with the token but bad input: each message answered with an error, an oversized one closes it; the origin serves on, its processes as they were', async () => {
  const childrenBefore = childrenOf(origin.proc.pid!).length;
  const ws = new WebSocket(`${origin.base.replace('http', 'ws')}/cluster/ws`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
  const errors: string[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as { type: string; message?: string };
    if (m.type === 'error') errors.push(m.message ?? '');
  });
  await new Promise((r) => ws.once('open', r));
  const tuple = { ip: '127.0.0.1', port: 9 };
  const srtp = { cryptoSuite: 'AEAD_AES_256_GCM', keyBase64: 'AAAA' };
  const bad = [
    Buffer.from([0xff, 0x00, 0x13]),
    'not json {',
    JSON.stringify({ type: 'unpipe', stream: 'default' }),
    JSON.stringify({ type: 'pipe', stream: 'x'.repeat(65), tuple, srtp }),
    JSON.stringify({ type: 'pipe', stream: 'no-such-stream', tuple, srtp }),
    JSON.stringify({ type: 'pipe', stream: 'default', tuple: { ip: '127.0.0.1', port: 70000 }, srtp }),
  ];
  for (const m of bad) ws.send(m);
  await until('an error for each bad message', async () => errors.length >= bad.length);
  assert.match(errors.join('\n'), /binary messages are not taken/);
  assert.match(errors.join('\n'), /no stream no-such-stream/);
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  ws.send(JSON.stringify({ type: 'pipe', stream: 'default', tuple, srtp: { ...srtp, keyBase64: 'A'.repeat(20_000) } }));
  assert.equal(await closed, 1009, 'over the 16 KiB a message may have');
  assert.equal((await fetch(`${origin.base}/api/health`)).status, 200);
  assert.equal(childrenOf(origin.proc.pid!).length, childrenBefore, 'no process started or lost');
});

test('both nodes are in the registry, and an operator change on the edge reaches the origin', async () => {
  const nodes = await until('both nodes listed', async () => {
    const res = (await (await fetch(`${edge.base}/api/cluster/nodes`, { headers: bearer })).json()) as { registry: string; nodes: { id: string; role: string; url: string; streams: string[] }[] };
    return res.registry === 'up' && res.nodes.length === 2 && res.nodes;
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  assert.equal(byId.get('origin')?.role, 'origin');
  assert.equal(byId.get('origin')?.url, `${origin.base}/`);
  assert.equal(byId.get('edge')?.role, 'edge');
  const put = await fetch(`${edge.base}/api/control`, { method: 'PUT', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ alphaKbps: 41 }) });
  assert.equal(put.status, 200);
  await until('the gains on the origin', async () => ((await (await fetch(`${origin.base}/api/control`, { headers: bearer })).json()) as { gains: { alphaKbps: number } }).gains.alphaKbps === 41);
});

test("any node names the edge for a stream, and the origin's page may connect to it", async () => {
  const placed = await until('the origin placing viewers', async () => {
    const r = await fetch(`${origin.base}/api/place?stream=default&colors=on`);
    return r.status === 200 && ((await r.json()) as { node: string; url: string; ws: string });
  });
  assert.deepEqual(placed, { node: 'edge', url: `${edge.base}/?stream=default&colors=on`, ws: `${edge.base.replace('http', 'ws')}/ws` });
  const excluded = await fetch(`${edge.base}/api/place?stream=default&exclude=edge`);
  assert.equal(excluded.status, 503, 'the edge the viewer lost is not named again');
  assert.equal((await fetch(`${edge.base}/api/place?exclude=${'x,'.repeat(9)}`)).status, 400);
  const none = await fetch(`${origin.base}/api/place?stream=no-such-stream`);
  assert.equal(none.status, 503);
  // The origin's pages (no redirect): their CSP lets the player reach the edge's signaling.
  const page = await until("the origin's page naming the edge", async () => {
    const r = await fetch(`${origin.base}/?stream=default`, { redirect: 'manual' });
    return r.status !== 302 && (r.headers.get('content-security-policy') ?? '').includes(edge.base.replace('http', 'ws')) && r;
  });
  assert.match(page.headers.get('content-security-policy') ?? '', /connect-src 'self' http:\/\/127\.0\.0\.1:\d+ ws:\/\/127\.0\.0\.1:\d+;/);
});

test('an edge started after a controller change takes it; stopped with SIGTERM, it moves its viewers away and is placed no more; a second signal ends the drain at once', async () => {
  const set = await fetch(`${origin.base}/api/streams/default/controller`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ controller: 'tfrc' }) });
  assert.equal(set.status, 200);
  // Longer than the test's wait for the exit: only the second signal can end this drain in time.
  const drainTimeoutMs = 120_000;
  const late = await startNode('edge-late', { ROLE: 'edge', DRAIN_TIMEOUT_MS: String(drainTimeoutMs) });
  try {
    const stream = await until('the late edge serving the stream', async () => (await snapshot(late)).streams.find((x) => x.id === 'default' && x.state === 'running' && x.framesIngested > 30));
    assert.equal((stream as unknown as { controller: string }).controller, 'tfrc', "the operator's controller, set before this edge served the stream");
    await until('the late edge in the registry', async () => ((await (await fetch(`${origin.base}/api/cluster/nodes`, { headers: bearer })).json()) as { nodes: { id: string }[] }).nodes.some((n) => n.id === 'edge-late'));
    // One viewer moves when told; the other stays.
    const [leaving, staying] = [await signaling(late), await signaling(late)];
    for (const v of [leaving, staying]) assert.equal((await v.request('join', { streamId: 'default' })).ok, true);
    const exited = new Promise((r) => late.proc.once('exit', r));
    late.proc.kill('SIGTERM');
    const move = await until('the move notice', async () => leaving.notifications.find((n) => n.notification === 'move'));
    assert.deepEqual(move.data, { node: 'edge-late', reason: 'this edge is stopping' });
    assert.ok(staying.notifications.some((n) => n.notification === 'move'), 'every viewer is told');
    const nodes = ((await (await fetch(`${origin.base}/api/cluster/nodes`, { headers: bearer })).json()) as { nodes: { id: string; draining: boolean }[] }).nodes;
    assert.equal(nodes.find((n) => n.id === 'edge-late')?.draining, true, 'marked draining before its viewers are told');
    assert.equal(((await (await fetch(`${origin.base}/api/place?stream=default`)).json()) as { node: string }).node, 'edge');
    leaving.ws.close();
    await until('the viewer that moved counted out', async () => (await snapshot(late)).streams[0]?.viewers === 1);
    assert.equal(late.proc.exitCode, null, 'it waits for the viewer still on it');
    late.proc.kill('SIGINT');
    const cutAt = Date.now();
    const exitedInTime = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
    assert.ok(exitedInTime, `still running 15 s after SIGINT (the drain would have waited ${drainTimeoutMs / 1000} s)`);
    assert.equal(logged(late, 'a second signal during the drain'), 1);
    assert.equal(logged(late, '"moved":1,"left":1,"cutShort":true'), 1, `drained: ${late.log.filter((l) => l.includes('drained')).join('; ')} (${Date.now() - cutAt} ms)`);
    staying.ws.close();
  } finally {
    if (late.proc.exitCode === null && late.proc.signalCode === null) late.proc.kill('SIGKILL');
  }
});

test("the edge serves the origin's stream: every rendition's frames, all three layers, and the PSNR rows", async () => {
  const [o] = (await snapshot(origin)).streams;
  assert.ok(o);
  const e = await until('the edge stream running with frames of every layer', async () => {
    const s = (await snapshot(edge)).streams.find((x) => x.id === o.id);
    return s && s.state === 'running' && s.framesIngested > 30 && s.layerKbps && s.layerKbps.tid0 > 0 && s.layerKbps.tid1 > 0 && s.layerKbps.tid2 > 0 && s;
  });
  assert.ok(e, 'the edge stream');
  assert.equal(e.renditions.length, 2, 'both renditions are described on the edge');
  assert.equal(await metric(edge, 'pels_mediasoup_routers'), 2, "the stream's router and its pipe's");
  // A viewer on the edge: its PSNR rows are the origin's, in order, both renditions, every layer.
  const viewer = await signaling(edge);
  try {
    const joined = await viewer.request('join', { streamId: o.id });
    assert.equal(joined.ok, true, JSON.stringify(joined.error));
    // A new viewer is sent its rendition's rows: the top one's.
    const top = await until('PSNR rows on the edge', async () => {
      const frames = viewer.notifications.filter((n) => n.notification === 'quality').flatMap((n) => n.data.frames);
      return frames.length > 20 && frames;
    });
    assert.ok(top.every((f: any) => !f.rendition));
    for (let k = 1; k < top.length; k++) assert.ok(top[k].index > top[k - 1].index, 'rows in order');
    assert.deepEqual(new Set(top.map((f: any) => f.tid)), new Set([0, 1, 2]));
    assert.ok(top.every((f: any) => f.psnr.length > 0 && typeof f.crc === 'number'));
  } finally {
    viewer.ws.close();
  }
  // The frames keep coming, in order: the edge's count grows with the origin's.
  const before = (await snapshot(edge)).streams[0]!.framesIngested;
  await new Promise((r) => setTimeout(r, 1500));
  assert.ok((await snapshot(edge)).streams[0]!.framesIngested > before + 10);
});

test("a WebRTC viewer on the edge gets every green frame and every layer; its keyframe requests reach the origin's encoder", async () => {
  assert.ok(existsSync(RECEIVERS_BIN), `${RECEIVERS_BIN} is missing: run npm run setup`);
  const before = (await snapshot(origin)).streams[0]!.keyframes;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(RECEIVERS_BIN, ['-url', edge.base, '-viewers', '1', '-seconds', '4'], { timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const r = (JSON.parse(out) as { receivers: { joined: boolean; green: { received: number; sent: number }; layers: { complete: number; incomplete: number }[] }[] }).receivers[0]!;
  assert.equal(r.joined, true);
  // 4 s of the base layer (a quarter of 30 frames a second).
  assert.ok(r.green.sent >= 20, `green frames sent: ${r.green.sent}`);
  assert.equal(r.green.received, r.green.sent);
  assert.deepEqual(r.layers.map((l) => l.complete > 0 && l.incomplete === 0), [true, true, true], JSON.stringify(r.layers));
  // Its join asked the edge's stream for a keyframe; the edge asked the origin (a PLI through the pipe).
  const edgeKeyframes = (await snapshot(edge)).streams[0]!.keyframes;
  assert.ok(edgeKeyframes.forced >= 1);
  const after = (await snapshot(origin)).streams[0]!.keyframes;
  assert.ok(after.requests.pli > before.requests.pli, `PLIs at the origin: ${before.requests.pli} -> ${after.requests.pli}`);
  assert.ok(after.forced > before.forced);
});

test("the edge plays the origin's sound", async () => {
  const s = await until('the edge stream with sound', async () => {
    const x = (await snapshot(edge)).streams[0] as { audio?: { codec: string } | null } | undefined;
    return x?.audio ?? undefined;
  });
  assert.equal(s.codec, 'opus');
  const [o0, e0] = [await metric(origin, 'pels_stream_audio_packets_total'), await metric(edge, 'pels_stream_audio_packets_total')];
  await sleep(2000);
  const [o1, e1] = [await metric(origin, 'pels_stream_audio_packets_total'), await metric(edge, 'pels_stream_audio_packets_total')];
  // 50 packets a second at the origin; the edge sends each once to its viewers' producers.
  assert.ok(o1 - o0 >= 50, `origin: ${o1 - o0} sound packets in 2 s`);
  assert.ok(e1 - e0 >= (o1 - o0) / 2, `edge: ${e1 - e0} sound packets in 2 s, origin ${o1 - o0}`);
});

test("the origin's media worker killed: the origin says so, the edge pipes the stream again and its index goes on", async () => {
  const before = await rowIndexes();
  const piped = logged(origin, 'a stream is piped to an edge');
  await killMediaWorker(origin);
  await until('the stream piped again', async () => logged(origin, 'a stream is piped to an edge') > piped);
  await framesFlowing();
  const after = await rowIndexes();
  assertInOrder(after);
  assert.ok(Math.max(...after) > Math.max(...before), `index ${Math.max(...before)} before, ${Math.max(...after)} after`);
  // The stream's router and its feed's on the origin; the stream's and the pipe's on the edge: none left behind.
  assert.equal(await metric(origin, 'pels_mediasoup_routers'), 2);
  assert.equal(await metric(edge, 'pels_mediasoup_routers'), 2);
  await until('the edge placed again', async () => (await fetch(`${edge.base}/api/place?stream=default`)).status === 200);
});

test("the edge's media worker killed: the edge pipes the stream again", async () => {
  const piped = logged(edge, 'the stream is piped from the origin');
  await killMediaWorker(edge);
  await until('the stream piped again', async () => logged(edge, 'the stream is piped from the origin') > piped);
  await framesFlowing();
  assert.equal(await metric(edge, 'pels_mediasoup_routers'), 2);
  assert.equal(await metric(origin, 'pels_mediasoup_routers'), 2);
});

let indexesBeforeRestart: number[] = [];

test('the origin killed: the edge reports its stream failed, keeps running and frees the pipe', async () => {
  indexesBeforeRestart = await rowIndexes();
  killed.push(origin.proc.pid!);
  origin.proc.kill('SIGKILL');
  const s = await until('the edge stream failed', async () => {
    const x = (await snapshot(edge)).streams[0];
    return x?.state === 'failed' && x;
  });
  assert.match(s.error ?? '', /origin .* is unreachable/);
  assert.equal(edge.proc.exitCode, null, 'the edge is still running');
  await until('the pipe router closed', async () => (await metric(edge, 'pels_mediasoup_routers')) === 1);
  assert.equal(await metric(edge, 'pels_mediasoup_transports'), 0);
  assert.equal((await fetch(`${edge.base}/api/health`)).status, 200);
  // Its stream has no frames: new viewers are not sent to it.
  await until('the edge placed no more for the stream', async () => (await fetch(`${edge.base}/api/place?stream=default`)).status === 503);
});

test("the origin started again (its indexes from 0): the edge's stream runs again and its index goes on", async () => {
  origin = await startNode('origin', { ...ORIGIN_ENV, PORT: new URL(origin.base).port });
  await framesFlowing();
  const after = await rowIndexes();
  // The rows kept from before the origin's death, then the new origin's, after them.
  assertInOrder(after);
  assert.ok(Math.max(...after) > Math.max(...indexesBeforeRestart) + 30, `index ${Math.max(...indexesBeforeRestart)} before, ${Math.max(...after)} after`);
  assert.equal(await metric(edge, 'pels_mediasoup_routers'), 2);
  await until('the edge placed again', async () => (await fetch(`${edge.base}/api/place?stream=default`)).status === 200);
});
