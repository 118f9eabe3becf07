/**
 * The registry against a real redis-server (a password, loopback): nodes see each other and a dead node
 * drops out with its record's time to live; an operator change on one node reaches the others, and a node
 * that connects later reads it; a node that loses Redis says so, keeps its state, and comes back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino, type Logger } from 'pino';
import { ClusterRegistry, HEARTBEAT_MS, type OperatorChange } from './clusterRegistry';
import { startRedis, type TestRedis } from './redisServerForTests';

let redis: TestRedis;
const open: ClusterRegistry[] = [];

before(async () => {
  redis = await startRedis();
});

after(async () => {
  for (const r of open) r.close();
  await redis.stop();
});

/** Log lines as objects, to read what the registry said. */
function logSink(): { log: Logger; lines: { msg: string }[] } {
  const lines: { msg: string }[] = [];
  const log = pino({ level: 'debug', base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

function node(id: string, password = redis.password, port = redis.port) {
  const applied: OperatorChange[] = [];
  const { log, lines } = logSink();
  const r = new ClusterRegistry({
    redis: { host: '127.0.0.1', port, password },
    nodeId: id,
    self: async () => ({ role: 'edge', url: `http://127.0.0.1:${id.length}/`, viewers: 3, viewersMax: 100, cpuPercentOfOneCore: 12.5, streams: ['default'], draining: false }),
    apply: (c) => applied.push(c),
    log,
  });
  open.push(r);
  r.start();
  return { r, applied, lines };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('nodes register with a heartbeat and see each other; a node that stops beating drops out', async () => {
  const a = node('edge-a');
  const b = node('edge-b');
  const seen = await until('both nodes in the registry', async () => {
    const nodes = await a.r.nodes();
    return nodes.length === 2 && nodes;
  });
  const bRecord = seen.find((n) => n.id === 'edge-b');
  assert.deepEqual(bRecord, { id: 'edge-b', role: 'edge', url: 'http://127.0.0.1:6/', viewers: 3, viewersMax: 100, cpuPercentOfOneCore: 12.5, streams: ['default'], draining: false });
  // A node killed (its connection gone, no DEL): its record expires with its time to live, a few heartbeats.
  b.r['conn'].close();
  b.r.close();
  assert.ok((await a.r.nodes()).some((n) => n.id === 'edge-b'), 'still there until its record expires');
  await until('edge-b gone', async () => (await a.r.nodes()).every((n) => n.id !== 'edge-b'), 10 * HEARTBEAT_MS);
  assert.deepEqual((await a.r.nodes()).map((n) => n.id), ['edge-a']);
});

test('an operator change on one node reaches the others, and a node that connects later reads it', async () => {
  const a = node('ops-a');
  const b = node('ops-b');
  await until('both connected', () => a.r.up && b.r.up);
  await new Promise((r) => setTimeout(r, 200)); // the subscribers too
  const gains = { alphaKbps: 33, beta: 0.4, sigma: 0.6, pThr: 0.7 };
  assert.equal(await a.r.share({ kind: 'gains', gains }), true);
  assert.equal(await a.r.share({ kind: 'controller', stream: 'default', controller: 'aimd' }), true);
  await until('the change on b', () => b.applied.length >= 2);
  assert.deepEqual(b.applied, [{ kind: 'gains', gains }, { kind: 'controller', stream: 'default', controller: 'aimd' }]);
  assert.deepEqual(a.applied.filter((c) => c.kind === 'controller'), [], 'a node does not apply its own change twice');
  const c = node('ops-c');
  await until('the shared state read by a node that came later', () => c.applied.length >= 2);
  assert.deepEqual(new Set(c.applied.map((x) => x.kind)), new Set(['gains', 'controller']));
});

test('a wrong password is refused and said', async () => {
  const w = node('wrong', 'not-the-redis-password-at-all');
  await until('the refusal logged', () => w.lines.find((l) => l.msg.includes('unreachable')));
  assert.equal(w.r.up, false);
  assert.equal(await w.r.share({ kind: 'controller', stream: 'default', controller: 'mkc' }), false);
});

test('Redis lost: the node says so and serves on; Redis back: it registers again and gets changes again', async () => {
  const a = node('lost-a');
  const b = node('lost-b');
  await until('both connected', () => a.r.up && b.r.up);
  await redis.stop();
  await until('a knows', () => !a.r.up);
  assert.ok(a.lines.some((l) => l.msg.includes('the registry is unreachable')));
  assert.deepEqual(await a.r.nodes(), [], 'no nodes known while Redis is away');
  assert.equal(await a.r.share({ kind: 'controller', stream: 'default', controller: 'tfrc' }), false);
  redis = await startRedis(redis.port);
  await until('both back', async () => (await a.r.nodes()).filter((n) => n.id.startsWith('lost-')).length === 2, 15_000);
  await new Promise((r) => setTimeout(r, 500)); // b's subscriber too
  const before = b.applied.length;
  assert.equal(await a.r.share({ kind: 'controller', stream: 'default', controller: 'rap' }), true);
  await until('the change on b again', () => b.applied.length > before);
  assert.deepEqual(b.applied.at(-1), { kind: 'controller', stream: 'default', controller: 'rap' });
});
