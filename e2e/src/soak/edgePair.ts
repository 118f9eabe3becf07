/**
 * An origin and an edge (ROLE=origin, ROLE=edge; docs/decisions/012) beside the
 * soak's own server, with a few churning synthetic viewers on the edge. The
 * soak's lost-edge fault SIGKILLs the edge, as a machine lost would, and starts
 * it again on its port, as a supervisor would; what must hold: the origin lets
 * go of the dead edge's pipe, nothing of the dead edge stays on the machine,
 * and the new edge serves its viewers again.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { serverDscpTables } from '../dscpTables';
import { RECEIVERS_BIN } from '../loadtest/loadTest';
import { childProcesses, getOnce, readResources } from '../processResources';
import { freePort, startServer, type RunningServer } from '../serverProcess';
import { startChurn, type ChurnViewers, type Life } from './churnViewers';

export interface EdgePairOptions {
  /** The namespace both run in, and the address they and their viewers reach each other at. */
  netns: string;
  host: string;
  operatorToken: string;
  /** Synthetic viewers on the edge, present at once. */
  viewers: number;
  stayMinS: number;
  stayMaxS: number;
  log: (message: string) => void;
}

export interface EdgePair {
  /** Lives of the edge's synthetic viewers, as each ended. */
  lives: Life[];
  /** SIGKILL the edge; its viewers lose it with it. Resolves once it is gone. */
  killEdge(): Promise<string>;
  /**
   * After killEdge: waits until the origin holds what it held before any edge came and the dead edge's
   * children are gone (each at most 10 s after the kill), starts the edge again on its port, and measures the time from `sinceMs`
   * until a new viewer on it decodes a keyframe (null: not within 60 s). `leaks` names what was kept;
   * `steps`, how long each part took.
   */
  recover(sinceMs: number): Promise<{ recoveryMs: number | null; leaks: string[]; steps: string }>;
  stop(): Promise<void>;
}

/** Small: the pair is there for its processes and pipe, not to load the machine. */
const ORIGIN_SOURCE = 'lavfi:testsrc2=size=320x180:rate=30';
const STREAM_ID = 'default';
const RELEASE_TIMEOUT_MS = 10_000;
const RECOVERY_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startEdgePair(o: EdgePairOptions): Promise<EdgePair> {
  const clusterToken = randomBytes(24).toString('base64url');
  const common = { OPERATOR_TOKEN: o.operatorToken, CLUSTER_TOKEN: clusterToken, MEDIA_WORKERS: '1', HOST: '0.0.0.0', RTC_LISTEN_IP: o.host };
  const onLog = (who: string) => (line: string) => {
    if (/"level":(50|60)/.test(line)) o.log(`${who}: ${line.slice(0, 300)}`);
  };
  const origin = await startServer({ env: { ...common, ROLE: 'origin', SOURCE: ORIGIN_SOURCE, VIDEO_KBPS: '400', RENDITIONS: 'none' }, netns: o.netns, controlHost: o.host, onLog: onLog('origin') });
  let edge: RunningServer | undefined;
  let churn: ChurnViewers | undefined;
  const lives: Life[] = [];
  try {
    const streamRunning = async (s: RunningServer) =>
      (JSON.parse((await getOnce(`${s.url}/api/streams`)).body) as { streams: Array<{ id: string; state: string; framesIngested: number }> }).streams.some(
        (x) => x.id === STREAM_ID && x.state === 'running' && x.framesIngested >= 30,
      );
    const until = async (what: string, ok: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 30_000; !(await ok().catch(() => false)); await sleep(250)) {
        if (Date.now() > deadline) throw new Error(`${what} within 30 s`);
      }
    };
    await until("the origin's stream did not start", () => streamRunning(origin));
    const originCounts = async () => {
      const r = await readResources(origin.pid, origin.port, origin.url, o.operatorToken, o.netns);
      return { fds: r.fds, transports: r.transports, consumers: r.consumers, processes: r.children.length };
    };
    // Before any edge: what the origin must come back to when its edge is gone.
    const originStart = await originCounts();
    const edgePort = await freePort();
    // Its viewers and the recovery probe all come from one address.
    const viewerPlaces = { MAX_VIEWERS_PER_ADDRESS: String(o.viewers + 16), MAX_SOCKETS_PER_ADDRESS: String(o.viewers + 32) };
    /** Resolves with when the edge answered and when its stream ran (Unix ms). */
    const startEdge = async () => {
      edge = await startServer({ env: { ...common, ROLE: 'edge', ORIGIN_URL: `http://${o.host}:${origin.port}`, PORT: String(edgePort), ...viewerPlaces }, netns: o.netns, controlHost: o.host, onLog: onLog('edge') });
      const answered = Date.now();
      await until("the edge's stream did not run", () => streamRunning(edge!));
      const running = Date.now();
      churn = startChurn({ count: o.viewers, url: edge.url, streamId: STREAM_ID, netns: o.netns, stayMinS: o.stayMinS, stayMaxS: o.stayMaxS, rampPerSecond: 2, onLife: (l) => lives.push(l), log: (m) => !/"event":"joined"/.test(m) && o.log(`edge ${m}`) });
      return { answered, running };
    };
    await startEdge();

    /** One synthetic viewer joins the edge: the time to its first keyframe on green, or null. */
    const probe = () =>
      new Promise<number | null>((resolve) =>
        execFile('ip', ['netns', 'exec', o.netns, RECEIVERS_BIN, '-url', edge!.url, '-stream', STREAM_ID, '-viewers', '1', '-seconds', '0.2', '-join-timeout', '10s'], { timeout: 20_000 }, (err, stdout) => {
          if (err) return resolve(null);
          try {
            const [r] = (JSON.parse(stdout) as { receivers: Array<{ joined: boolean; joinMs: number | null }> }).receivers;
            resolve(r?.joined && r.joinMs !== null ? r.joinMs : null);
          } catch {
            resolve(null);
          }
        }),
      );

    let dead: { pid: number; children: Array<{ pid: number; comm: string }> } | undefined;
    return {
      lives,
      async killEdge() {
        const e = edge!;
        dead = { pid: e.pid, children: childProcesses(e.pid).map(([pid, comm]) => ({ pid, comm })) };
        await e.kill();
        // The churning viewers would retry a refused join at once, over and over: they go, and come back with the edge.
        await churn?.stop();
        churn = undefined;
        return `edge ${e.pid} SIGKILL (with ${o.viewers} churning synthetic viewers), started again on its port`;
      },
      async recover(sinceMs) {
        const leaks: string[] = [];
        let now = await originCounts();
        const released = (c: typeof now) => c.transports === originStart.transports && c.consumers === originStart.consumers && c.processes === originStart.processes && c.fds <= originStart.fds;
        for (const deadline = sinceMs + RELEASE_TIMEOUT_MS; !released(now) && Date.now() < deadline; now = await originCounts()) await sleep(250);
        if (!released(now)) leaks.push(`the origin kept the dead edge's: ${JSON.stringify(originStart)} before any edge, ${JSON.stringify(now)} 10 s after the edge died`);
        const releasedAt = Date.now();
        // Its children see their parent gone when their pipes to it close: given the same time as the origin, while the
        // edge starts again (as a supervisor would start it, without waiting for them).
        const childrenGone = async () => {
          let kept = dead!.children.filter((c) => alive(c.pid));
          for (const deadline = sinceMs + RELEASE_TIMEOUT_MS; kept.length && Date.now() < deadline; kept = kept.filter((c) => alive(c.pid))) await sleep(250);
          if (kept.length) leaks.push(`the dead edge's children still running 10 s after it: ${kept.map((c) => `${c.comm} ${c.pid}`).join(', ')}`);
        };
        const [up] = await Promise.all([startEdge(), childrenGone()]);
        // The new edge removes a dead one's DSCP table when it starts.
        if (serverDscpTables(edgePort, dead!.pid, o.netns).length) leaks.push(`the dead edge's nftables table pels_${edgePort}_pid${dead!.pid}`);
        const steps = `origin released the pipe after ${releasedAt - sinceMs} ms, the new edge answered after ${up.answered - sinceMs} ms, its stream ran after ${up.running - sinceMs} ms`;
        for (;;) {
          const probeStart = Date.now();
          const joinMs = await probe();
          if (joinMs !== null) return { recoveryMs: Math.round(probeStart + joinMs - sinceMs), leaks, steps };
          if (Date.now() - sinceMs > RECOVERY_TIMEOUT_MS) return { recoveryMs: null, leaks, steps };
          await sleep(250);
        }
      },
      async stop() {
        await churn?.stop();
        await edge?.stop();
        await origin.stop();
      },
    };
  } catch (err) {
    await churn?.stop();
    await edge?.stop();
    await origin.stop();
    throw err;
  }
}
