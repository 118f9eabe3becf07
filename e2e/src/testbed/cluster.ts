/**
 * A cluster for the testbed and the load test (--edges N): Redis (with a password, bound to the cluster's
 * network), one origin and N edges, each on a host of its own (a namespace and address of a LAN,
 * lanTopology.ts) or, without namespaces, all on loopback on ports of their own. Viewers join through the
 * front (the origin: its player page says it places viewers, and its /api/place names an edge); the edge with the most
 * viewers can be killed (SIGKILL) during a run.
 */
import { randomBytes } from 'node:crypto';
import { startRedis, type TestRedis } from '../../../server/src/cluster/redisServerForTests';
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import { freePort, freeRtcPort, startServer, type RunningServer } from '../serverProcess';
import type { Resources } from './resources';

/** Where a node runs: a namespace and its address, or loopback (no netns). */
export interface ClusterHost {
  netns?: string;
  ip: string;
}

export interface ClusterNode {
  id: string;
  role: 'origin' | 'edge';
  /** host:port, as players and the other nodes reach it. */
  address: string;
  server: RunningServer;
  /** When it was killed (Unix ms); undefined: it ran to the end. */
  killedAtMs?: number;
}

export interface Cluster {
  /** The base URL viewers open: the origin, which places them on edges. */
  front: string;
  origin: RunningServer;
  redis: TestRedis;
  /** The origin first, then the edges. */
  nodes: ClusterNode[];
  /** The registry's records as the origin lists them; null: unreadable. */
  records(): Promise<NodeRecord[] | null>;
  /** SIGKILLs the live edge with the most viewers (by the registry; the first live edge when it cannot say). */
  killEdge(): Promise<ClusterNode>;
}

export interface ClusterOptions {
  edges: number;
  /** The origin's host, then each edge's. */
  hosts: ClusterHost[];
  operatorToken: string;
  /** Every node's settings (router token, feedback, ...). */
  env: Record<string, string>;
  /** The origin's own (its source). */
  originEnv: Record<string, string>;
  /** Viewers the run brings, all from one address: every edge could take them all. */
  viewers: number;
  log: (message: string) => void;
}

/** In a namespace of its own a node has the ports to itself. */
const NS_PORT = 8080;
const NS_RTC_PORT = 40000;
const NS_REDIS_PORT = 6379;
const READY_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startCluster(o: ClusterOptions, res: Resources): Promise<Cluster> {
  const [originHost, ...edgeHosts] = o.hosts;
  if (!originHost || edgeHosts.length !== o.edges) throw new Error(`a cluster of ${o.edges} edge(s) needs ${o.edges + 1} hosts, got ${o.hosts.length}`);
  const redis = await startRedis(originHost.netns ? NS_REDIS_PORT : undefined, { bind: originHost.ip, ...(originHost.netns ? { netns: originHost.netns } : {}) });
  res.add(() => redis.stop());
  o.log(`redis on ${originHost.ip}:${redis.port} (password, bound to the cluster's address)`);
  const common = {
    ...o.env,
    OPERATOR_TOKEN: o.operatorToken,
    CLUSTER_TOKEN: randomBytes(24).toString('base64url'),
    REDIS_URL: `redis://${originHost.ip}:${redis.port}`,
    REDIS_PASSWORD: redis.password,
    HOST: '0.0.0.0',
  };
  const start = async (id: string, role: ClusterNode['role'], host: ClusterHost, env: Record<string, string>): Promise<ClusterNode> => {
    const port = host.netns ? NS_PORT : await freePort();
    const rtcPort = host.netns ? NS_RTC_PORT : await freeRtcPort();
    const address = `${host.ip}:${port}`;
    const server = await startServer({
      env: { ...common, ...env, ROLE: role, NODE_ID: id, NODE_URL: `http://${address}`, PORT: String(port), RTC_PORT: String(rtcPort), RTC_LISTEN_IP: host.ip },
      ...(host.netns ? { netns: host.netns } : {}),
      controlHost: host.ip,
      onLog: (line) => o.log(`${id}: ${line}`),
    });
    res.add(() => server.stop());
    return { id, role, address, server };
  };
  const origin = await start('origin', 'origin', originHost, o.originEnv);
  const stream = await firstStream(origin.server.url);
  const places = { MAX_VIEWERS: String(o.viewers + 16), MAX_VIEWERS_PER_ADDRESS: String(o.viewers + 16), MAX_SOCKETS_PER_ADDRESS: String(o.viewers + 32) };
  // One after another: on a busy machine several node processes starting at once can each miss the 30 s to answer.
  const edges: ClusterNode[] = [];
  for (const [i, h] of edgeHosts.entries()) edges.push(await start(`edge-${i + 1}`, 'edge', h, { ...places, ORIGIN_URL: origin.server.url }));
  const nodes = [origin, ...edges];
  const auth = { authorization: `Bearer ${o.operatorToken}` };
  const records = async (): Promise<NodeRecord[] | null> => {
    const r = await fetch(`${origin.server.url}/api/cluster/nodes`, { headers: auth, signal: AbortSignal.timeout(2000) }).then((x) => (x.ok ? (x.json() as Promise<{ nodes: NodeRecord[] }>) : null), () => null);
    return r?.nodes ?? null;
  };
  // Placeable: every edge in the registry with the stream, which it runs.
  for (const deadline = Date.now() + READY_TIMEOUT_MS; ; await sleep(250)) {
    const listed = (await records()) ?? [];
    const ready = edges.filter((e) => listed.some((n) => n.id === e.id && n.streams.includes(stream)));
    if (ready.length === edges.length) break;
    if (Date.now() > deadline) throw new Error(`only ${ready.map((e) => e.id).join(', ') || 'no edge'} of ${edges.length} edge(s) registered with stream ${stream} within ${READY_TIMEOUT_MS / 1000} s`);
  }
  o.log(`cluster up: origin ${origin.address}, ${edges.map((e) => `${e.id} ${e.address}`).join(', ')}; stream ${stream}`);
  return {
    front: `http://${origin.address}`,
    origin: origin.server,
    redis,
    nodes,
    records,
    async killEdge() {
      const live = edges.filter((e) => e.server.running());
      const listed = (await records()) ?? [];
      const viewers = (e: ClusterNode) => listed.find((n) => n.id === e.id)?.viewers ?? -1;
      const victim = live.reduce<ClusterNode | undefined>((best, e) => (!best || viewers(e) > viewers(best) ? e : best), undefined);
      if (!victim) throw new Error('no live edge to kill');
      victim.killedAtMs = Date.now();
      await victim.server.kill();
      o.log(`${victim.id} killed (SIGKILL) with ${Math.max(0, viewers(victim))} viewer(s) by the registry`);
      return victim;
    },
  };
}

/** The origin's first stream, once it runs. */
async function firstStream(url: string): Promise<string> {
  for (const deadline = Date.now() + READY_TIMEOUT_MS; ; await sleep(250)) {
    const list = await fetch(`${url}/api/streams`, { signal: AbortSignal.timeout(2000) }).then((r) => r.json() as Promise<{ streams: { id: string; state: string; framesIngested: number }[] }>, () => null);
    const s = list?.streams[0];
    if (s && s.state === 'running' && s.framesIngested > 0) return s.id;
    if (Date.now() > deadline) throw new Error(`the origin's first stream is not running after ${READY_TIMEOUT_MS / 1000} s (${s ? s.state : 'no stream'})`);
  }
}
