/**
 * A cluster beside the soak's own server (docs/decisions/012): Redis, an origin and two edges, with a few
 * churning synthetic viewers placed on the edges through the front (the origin's /api/place), as players are.
 * The soak's lost-edge fault SIGKILLs the edge with the most viewers, as a machine lost would: its viewers
 * move to the other edge (each asks the front again, leaving the lost one out), and a supervisor starts the
 * lost edge again on its port. What must hold: a viewer placed after the loss decodes within the recovery
 * target, the origin lets go of the dead edge's pipe, nothing of the dead edge stays on the machine, and the
 * edge started again registers and serves its stream.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import { startRedis } from '../../../server/src/cluster/redisServerForTests';
import { serverDscpTables } from '../dscpTables';
import { RECEIVERS_BIN } from '../loadtest/loadTest';
import { childProcesses, getOnce, httpConnectionFds, readResources } from '../processResources';
import { freePort, startServer, type RunningServer } from '../serverProcess';
import { startChurn, type ChurnViewers, type Life } from './churnViewers';

export interface EdgePairOptions {
  /** The namespace all run in, and the address they and their viewers reach each other at. */
  netns: string;
  host: string;
  operatorToken: string;
  /** Synthetic viewers on the edges (placed by the front), present at once. */
  viewers: number;
  stayMinS: number;
  stayMaxS: number;
  log: (message: string) => void;
}

export interface EdgePair {
  /** Lives of the edges' synthetic viewers, as each ended (a moved viewer's `rejoins` say how it came back). */
  lives: Life[];
  /** SIGKILL the edge with the most viewers; its viewers lose it with it. Resolves once it is gone. */
  killEdge(): Promise<string>;
  /**
   * After killEdge: the time from `sinceMs` until a viewer placed by the front decodes a keyframe on green
   * (null: not within 60 s); meanwhile, that the origin holds no more than it held with one edge and the dead
   * edge's children are gone (each at most 10 s after the kill), then the edge started again on its port until
   * it is registered with its stream. `leaks` names what was kept; `steps`, how long each part took.
   */
  recover(sinceMs: number): Promise<{ recoveryMs: number | null; leaks: string[]; steps: string }>;
  stop(): Promise<void>;
}

/** Small: the cluster is there for its processes and pipes, not to load the machine. */
const ORIGIN_SOURCE = 'lavfi:testsrc2=size=320x180:rate=30';
const STREAM_ID = 'default';
const EDGES = 2;
const RELEASE_TIMEOUT_MS = 10_000;
const RECOVERY_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Edge {
  id: string;
  port: number;
  server: RunningServer;
}

export async function startEdgePair(o: EdgePairOptions): Promise<EdgePair> {
  const redis = await startRedis(undefined, { bind: o.host, netns: o.netns });
  const originPort = await freePort();
  const front = `http://${o.host}:${originPort}`;
  const common = {
    OPERATOR_TOKEN: o.operatorToken,
    CLUSTER_TOKEN: randomBytes(24).toString('base64url'),
    REDIS_URL: `redis://${o.host}:${redis.port}`,
    REDIS_PASSWORD: redis.password,
    MEDIA_WORKERS: '1',
    HOST: '0.0.0.0',
    RTC_LISTEN_IP: o.host,
  };
  const onLog = (who: string) => (line: string) => {
    if (/"level":(50|60)/.test(line)) o.log(`${who}: ${line.slice(0, 300)}`);
  };
  const edges: Edge[] = [];
  let origin: RunningServer | undefined;
  let churn: ChurnViewers | undefined;
  const lives: Life[] = [];
  const stopAll = async () => {
    await churn?.stop();
    for (const e of edges) await e.server.stop();
    await origin?.stop();
    await redis.stop();
  };
  try {
    origin = await startServer({
      env: { ...common, ROLE: 'origin', NODE_ID: 'origin', NODE_URL: front, PORT: String(originPort), SOURCE: ORIGIN_SOURCE, VIDEO_KBPS: '400', RENDITIONS: 'none' },
      netns: o.netns,
      controlHost: o.host,
      onLog: onLog('origin'),
    });
    const theOrigin = origin;
    const until = async (what: string, ok: () => Promise<boolean>) => {
      for (const deadline = Date.now() + READY_TIMEOUT_MS; !(await ok().catch(() => false)); await sleep(250)) {
        if (Date.now() > deadline) throw new Error(`${what} within ${READY_TIMEOUT_MS / 1000} s`);
      }
    };
    const streamRunning = async (s: RunningServer) =>
      (JSON.parse((await getOnce(`${s.url}/api/streams`)).body) as { streams: Array<{ id: string; state: string; framesIngested: number }> }).streams.some(
        (x) => x.id === STREAM_ID && x.state === 'running' && x.framesIngested >= 30,
      );
    const records = async (): Promise<NodeRecord[]> => {
      const r = await fetch(`${theOrigin.url}/api/cluster/nodes`, { headers: { authorization: `Bearer ${o.operatorToken}` }, signal: AbortSignal.timeout(2000) });
      if (!r.ok) throw new Error(`the registry: ${r.status}`);
      return ((await r.json()) as { nodes: NodeRecord[] }).nodes;
    };
    await until("the origin's stream did not start", () => streamRunning(theOrigin));
    const originCounts = async () => {
      const r = await readResources(theOrigin.pid, theOrigin.port, theOrigin.url, o.operatorToken, o.netns);
      // Its HTTP connections come and go with the placements (viewers moving, the probe): not counted.
      return { fds: r.fds - httpConnectionFds(theOrigin.pid, theOrigin.port), transports: r.transports, consumers: r.consumers, processes: r.children.length };
    };
    // Its viewers and the recovery probe all come from one address.
    const viewerPlaces = { MAX_VIEWERS_PER_ADDRESS: String(o.viewers + 16), MAX_SOCKETS_PER_ADDRESS: String(o.viewers + 32) };
    /** Starts an edge on its port; resolves with when it answered, ran its stream and was placeable (Unix ms). */
    const startEdge = async (id: string, port: number) => {
      const server = await startServer({
        env: { ...common, ROLE: 'edge', NODE_ID: id, NODE_URL: `http://${o.host}:${port}`, ORIGIN_URL: front, PORT: String(port), ...viewerPlaces },
        netns: o.netns,
        controlHost: o.host,
        onLog: onLog(id),
      });
      const answered = Date.now();
      const i = edges.findIndex((e) => e.id === id);
      if (i >= 0) edges[i] = { id, port, server };
      else edges.push({ id, port, server });
      await until(`${id}'s stream did not run`, () => streamRunning(server));
      const running = Date.now();
      await until(`${id} was not registered with its stream`, async () => (await records()).some((n) => n.id === id && n.streams.includes(STREAM_ID)));
      return { answered, running, placeable: Date.now() };
    };
    // What the origin holds with one edge: what it must come back to when one of two is lost.
    await startEdge('edge-1', await freePort());
    const oneEdge = await originCounts();
    await startEdge('edge-2', await freePort());
    churn = startChurn({ count: o.viewers, url: front, place: true, streamId: STREAM_ID, netns: o.netns, stayMinS: o.stayMinS, stayMaxS: o.stayMaxS, rampPerSecond: 2, onLife: (l) => lives.push(l), log: (m) => !/"event":"joined"/.test(m) && o.log(`edges ${m}`) });

    /** One new viewer through the front: the time to its first keyframe on green, and the edge it was placed on; null: it did not decode. */
    const probe = () =>
      new Promise<{ joinMs: number; edge: string } | null>((resolve) =>
        execFile('ip', ['netns', 'exec', o.netns, RECEIVERS_BIN, '-url', front, '-place', '-stream', STREAM_ID, '-viewers', '1', '-seconds', '0.2', '-join-timeout', '10s'], { timeout: 20_000 }, (err, stdout) => {
          if (err) return resolve(null);
          try {
            const [r] = (JSON.parse(stdout) as { receivers: Array<{ joined: boolean; joinMs: number | null; edge?: string }> }).receivers;
            resolve(r?.joined && r.joinMs !== null ? { joinMs: r.joinMs, edge: r.edge ?? '?' } : null);
          } catch {
            resolve(null);
          }
        }),
      );

    let dead: { edge: Edge; children: Array<{ pid: number; comm: string }> } | undefined;
    return {
      lives,
      async killEdge() {
        const listed = await records().catch(() => [] as NodeRecord[]);
        const viewers = (e: Edge) => listed.find((n) => n.id === e.id)?.viewers ?? -1;
        const victim = edges.reduce((best, e) => (viewers(e) > viewers(best) ? e : best));
        dead = { edge: victim, children: childProcesses(victim.server.pid).map(([pid, comm]) => ({ pid, comm })) };
        await victim.server.kill();
        return `${victim.id} (pid ${victim.server.pid}, ${Math.max(0, viewers(victim))} of ${o.viewers} churning synthetic viewers by the registry) SIGKILL; its viewers move to the other edge, it is started again on its port`;
      },
      async recover(sinceMs) {
        const { edge, children } = dead!;
        const leaks: string[] = [];
        // A viewer that comes after the loss: placed on the edge left (the front may still name the dead one
        // until its record expires, as it may to a player; that viewer fails and asks again).
        const moved = (async () => {
          for (;;) {
            const probeStart = Date.now();
            const r = await probe();
            if (r) return { ms: Math.round(probeStart + r.joinMs - sinceMs), edge: r.edge };
            if (Date.now() - sinceMs > RECOVERY_TIMEOUT_MS) return null;
            await sleep(250);
          }
        })();
        let now = await originCounts();
        const released = (c: typeof now) => c.transports === oneEdge.transports && c.consumers === oneEdge.consumers && c.processes === oneEdge.processes && c.fds <= oneEdge.fds;
        for (const deadline = sinceMs + RELEASE_TIMEOUT_MS; !released(now) && Date.now() < deadline; now = await originCounts()) await sleep(250);
        if (!released(now)) leaks.push(`the origin kept the dead edge's: ${JSON.stringify(oneEdge)} with one edge, ${JSON.stringify(now)} 10 s after ${edge.id} died`);
        const releasedAt = Date.now();
        // Its children see their parent gone when their pipes to it close: given the same time as the origin, while the
        // edge starts again (as a supervisor would start it, without waiting for them).
        const childrenGone = async () => {
          let kept = children.filter((c) => alive(c.pid));
          for (const deadline = sinceMs + RELEASE_TIMEOUT_MS; kept.length && Date.now() < deadline; kept = kept.filter((c) => alive(c.pid))) await sleep(250);
          if (kept.length) leaks.push(`the dead edge's children still running 10 s after it: ${kept.map((c) => `${c.comm} ${c.pid}`).join(', ')}`);
        };
        const [back, up] = await Promise.all([moved, startEdge(edge.id, edge.port), childrenGone()]);
        // The new edge removes a dead one's DSCP table when it starts.
        if (serverDscpTables(edge.port, edge.server.pid, o.netns).length) leaks.push(`the dead edge's nftables table pels_${edge.port}_pid${edge.server.pid}`);
        const steps = `a new viewer decoded on ${back?.edge ?? 'no edge'}; the origin released the pipe after ${releasedAt - sinceMs} ms; ${edge.id} started again answered after ${up.answered - sinceMs} ms, ran its stream after ${up.running - sinceMs} ms, was placeable after ${up.placeable - sinceMs} ms`;
        return { recoveryMs: back?.ms ?? null, leaks, steps };
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
