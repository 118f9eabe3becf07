/**
 * A load test: N synthetic WebRTC viewers (receivers/, one process) join the
 * server's first stream at a ramp, hold, and report what they received; the
 * server's processes (node, each mediasoup worker, FFmpeg, the encoder) and the
 * receivers' process are measured over the hold (CPU from /proc, resident
 * memory at its end). Starts its own server unless given a URL.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../serverProcess';
import { descendants, mainThreadCpuSeconds, runQueueWaitSeconds, snapshot, type ProcessSample } from '../testbed/processCpu';
import { round } from '../testbed/metrics';
import { receiversReportSchema } from '@pels/shared/protocol/syntheticReceivers';
import { startCluster, type Cluster } from '../testbed/cluster';
import { nodeResults, type NodeResult } from '../testbed/clusterSummary';
import { Resources } from '../testbed/resources';
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import { summarizeReceivers, type ReceiversSummary } from './receiverReport';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const RECEIVERS_BIN = `${ROOT}receivers/out/pels-receivers`;

export interface LoadTestOptions {
  viewers: number;
  rampPerSecond: number;
  /** Seconds held once every viewer has joined or failed. */
  seconds: number;
  /** A running server to target; without it one is started (and measured). */
  url?: string;
  /** Settings for the server started (none with `url`). */
  serverEnv?: Record<string, string>;
  /** `rlm`: each receiver chooses its layers by RLM; absent: it takes what the server sends (PELS). */
  rx?: 'rlm';
  /** A cluster on loopback instead of one server: Redis, an origin and this many edges; the receivers join through the origin's placement. */
  edges?: number;
  log: (message: string) => void;
}

export interface ProcessUse {
  pid: number;
  name: string;
  /** Over the hold. */
  cpuPercentOfOneCore: number;
  /** The most seen in the hold (sampled every second). */
  rssMb: number;
  /** A node process's main thread (its event loop) alone, over the hold. */
  mainThreadPercentOfOneCore?: number;
  /** Over the hold, its threads' time runnable but waiting for a CPU (the kernel's schedstat), in % of one core: what it would have used more on an idle machine, at most. */
  waitPercentOfOneCore?: number;
}

export interface LoadTestResult extends ReceiversSummary {
  rampPerSecond: number;
  holdSeconds: number;
  /** The server's processes together (null for a server given by URL). */
  cpuPercentOfOneCore: number | null;
  cpuPercentOfMachine: number | null;
  rssMb: number | null;
  machineCores: number;
  /** Each of the server's processes; the receivers' own (which share the machine; its RSS is its peak). */
  server: ProcessUse[];
  receivers: ProcessUse;
  /** With edges: each node (its viewers by the registry at the hold's end, its process tree's CPU over the hold). */
  nodes?: NodeResult[];
}

/** The command names /proc gives, truncated to 15 characters, as the programs are called. */
const FULL_NAMES: Record<string, string> = { 'mediasoup-worke': 'mediasoup-worker' };
/** tsx's compiler service of a server run from source: not the product's. */
const NOT_PRODUCT = new Set(['esbuild']);

/** `mainThreads`: the main threads' CPU seconds at the hold's start and end, by pid (node processes); `waits`: each process's run-queue wait so far, at both. */
function usage(pids: number[], a: Map<number, ProcessSample>, b: Map<number, ProcessSample>, seconds: number, peakRss: Map<number, number>, mainThreads?: { a: Map<number, number>; b: Map<number, number> }, waits?: { a: Map<number, number>; b: Map<number, number> }): ProcessUse[] {
  return pids.flatMap((pid) => {
    const end = b.get(pid);
    if (!end) return [];
    const used = end.cpuSeconds - (a.get(pid)?.cpuSeconds ?? 0);
    const ma = mainThreads?.a.get(pid);
    const mb = mainThreads?.b.get(pid);
    const main = ma !== undefined && mb !== undefined ? { mainThreadPercentOfOneCore: round((100 * (mb - ma)) / seconds, 1)! } : {};
    const wait = waitOverHold(waits?.a.get(pid), waits?.b.get(pid), seconds);
    return [{ pid, name: FULL_NAMES[end.name] ?? end.name, cpuPercentOfOneCore: round((100 * used) / seconds, 1)!, rssMb: round((peakRss.get(pid) ?? 0) / 2 ** 20, 1)!, ...main, ...wait }];
  });
}

/** The node processes' main threads' CPU seconds now, by pid. */
function mainThreads(pids: number[]): Map<number, number> {
  return new Map(pids.flatMap((pid) => {
    const s = mainThreadCpuSeconds(pid);
    return s === null ? [] : [[pid, s] as [number, number]];
  }));
}

/**
 * A process's run-queue wait over the hold, in % of one core, from its wait so far at the hold's start and end.
 * Summed over the threads alive at each end: a thread that ended in the hold took its wait with it, so less than at
 * the start gives no figure.
 */
function waitOverHold(a: number | undefined, b: number | undefined, seconds: number): { waitPercentOfOneCore?: number } {
  return a !== undefined && b !== undefined && b >= a ? { waitPercentOfOneCore: round((100 * (b - a)) / seconds, 1)! } : {};
}

/** The run-queue wait so far of each process in `snap` under `roots`, and of `others`. */
function runQueueWaits(snap: Map<number, ProcessSample>, roots: number[], others: number[]): Map<number, number> {
  const pids = [...roots.flatMap((r) => descendants(snap, r)), ...others];
  return new Map(pids.flatMap((pid) => {
    const w = runQueueWaitSeconds(pid);
    return w === null ? [] : [[pid, w] as [number, number]];
  }));
}

/** Each node of the cluster over the hold: its process tree's CPU (by process name, as the testbed's TreeCpu groups), its registry record at the end. */
function clusterNodes(cluster: Cluster, records: NodeRecord[] | null, a: Map<number, ProcessSample>, b: Map<number, ProcessSample>, seconds: number): NodeResult[] {
  const cpu = Object.fromEntries(
    cluster.nodes.map((n) => {
      const byName: Record<string, number> = {};
      for (const p of usage(descendants(b, n.server.pid), a, b, seconds, new Map())) byName[p.name] = round((byName[p.name] ?? 0) + p.cpuPercentOfOneCore, 1)!;
      return [n.id, byName];
    }),
  );
  return nodeResults(cluster.nodes, new Map((records ?? []).map((r) => [r.id, r])), cpu, 0);
}

/** Waits until the server's first stream is running (its ingest delivers frames). */
async function streamRunning(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/api/streams`, { signal: AbortSignal.timeout(2000) }).then((r) => r.json() as Promise<{ streams: { state: string; framesIngested: number }[] }>, () => null);
    const s = res?.streams[0];
    if (s && s.state === 'running' && s.framesIngested > 0) return;
    if (Date.now() > deadline) throw new Error(`the server's first stream is not running after ${timeoutMs / 1000} s (${s ? s.state : 'no stream'})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function runLoadTest(o: LoadTestOptions): Promise<LoadTestResult> {
  if (!existsSync(RECEIVERS_BIN)) throw new Error(`${RECEIVERS_BIN} is missing: run npm run setup`);
  let server: RunningServer | null = null;
  const res = new Resources();
  let cluster: Cluster | null = null;
  if (o.edges) {
    const loopback = { ip: '127.0.0.1' };
    // Every receiver asks the front (the origin) for its edge from this one address: the placement's limit must not be what is measured.
    cluster = await startCluster(
      { edges: o.edges, hosts: Array.from({ length: o.edges + 1 }, () => loopback), operatorToken: randomBytes(24).toString('base64url'), env: { LOG_LEVEL: 'warn', ...o.serverEnv }, originEnv: { PLACE_REQUESTS_PER_MINUTE: String(2 * o.viewers + 60) }, viewers: o.viewers, log: (line) => o.log(line) },
      res,
    ).catch(async (err: unknown) => {
      await res.release();
      throw err;
    });
  } else if (!o.url) {
    server = await startServer({
      env: {
        // Every receiver comes from this host: the per-address and viewer limits must not be what is measured.
        MAX_VIEWERS: String(o.viewers),
        // Every synthetic viewer joins from this one host.
        MAX_VIEWERS_PER_ADDRESS: String(o.viewers),
        MAX_SOCKETS_PER_ADDRESS: String(o.viewers + 16),
        LOG_LEVEL: 'warn',
        ...o.serverEnv,
      },
      onLog: (line) => o.log(`server: ${line}`),
    });
  }
  const url = cluster?.front ?? o.url ?? server!.url;
  try {
    await streamRunning(cluster?.origin.url ?? url);
    o.log(`${o.viewers} viewers at ${o.rampPerSecond}/s against ${url}, then ${o.seconds} s held`);
    // The load generator shares the machine with the server it measures: in a session of its own (setsid), which
    // Linux's autogroup scheduling gives a CPU share of its own, it does not take the server's share (as if on
    // another machine), so the server's stream and fan-out are measured, not the contest between them.
    const child = spawn(RECEIVERS_BIN, ['-url', url, '-viewers', String(o.viewers), '-ramp', String(o.rampPerSecond), '-seconds', String(o.seconds), ...(o.rx ? ['-rx', o.rx] : []), ...(cluster ? ['-place'] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // Out of this process group, it misses a Ctrl-C: it goes with this process.
    const stopReceivers = () => child.kill('SIGTERM');
    process.once('exit', stopReceivers);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const nodePids = cluster ? cluster.nodes.map((n) => n.server.pid) : server ? [server.pid] : [];
    type Mark = { t: bigint; snap: Map<number, ProcessSample>; main: Map<number, number>; waits: Map<number, number> };
    const mark = (): Mark => {
      const snap = snapshot();
      return { t: process.hrtime.bigint(), snap, main: mainThreads(nodePids), waits: runQueueWaits(snap, nodePids, [child.pid!]) };
    };
    let holdAt: Mark | null = null;
    let endAt: Mark | null = null;
    const peakRss = new Map<number, number>();
    const sampleRss = () => {
      for (const [pid, p] of snapshot()) peakRss.set(pid, Math.max(peakRss.get(pid) ?? 0, p.rssBytes));
    };
    let rssTimer: NodeJS.Timeout | undefined;
    let records: Promise<NodeRecord[] | null> = Promise.resolve(null);
    createInterface({ input: child.stderr }).on('line', (line) => {
      let ev: { event?: string; joined?: number; failed?: number } = {};
      try {
        ev = JSON.parse(line) as typeof ev;
      } catch {
        return o.log(`receivers: ${line}`);
      }
      if (ev.event === 'joined') o.log(`joined ${ev.joined}, failed ${ev.failed} of ${o.viewers}`);
      // The hold is measured from the receivers' own marks, so the ramp's cost is left out.
      if (ev.event === 'hold') {
        holdAt = mark();
        rssTimer = setInterval(sampleRss, 1000);
      }
      if (ev.event === 'end') {
        if (cluster) records = cluster.records();
        clearInterval(rssTimer);
        endAt = mark();
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    process.off('exit', stopReceivers);
    clearInterval(rssTimer);
    if (code !== 0) throw new Error(`the receivers exited with code ${code}`);
    if (!holdAt || !endAt) throw new Error('the receivers ended without a hold');
    const hold: Mark = holdAt;
    const end: Mark = endAt;
    const seconds = Number(end.t - hold.t) / 1e9;
    const report = receiversReportSchema.parse(JSON.parse(stdout));
    const receiversWait = waitOverHold(hold.waits.get(child.pid!), end.waits.get(child.pid!), seconds);
    const serverUse = nodePids.flatMap((root) => usage(descendants(end.snap, root), hold.snap, end.snap, seconds, peakRss, { a: hold.main, b: end.main }, { a: hold.waits, b: end.waits }));
    const product = serverUse.filter((p) => !NOT_PRODUCT.has(p.name));
    const cores = cpus().length;
    const measured = server !== null || cluster !== null;
    const cpu = measured ? round(product.reduce((n, p) => n + p.cpuPercentOfOneCore, 0), 1) : null;
    return {
      ...summarizeReceivers(report),
      rampPerSecond: o.rampPerSecond,
      holdSeconds: round(seconds, 1)!,
      cpuPercentOfOneCore: cpu,
      cpuPercentOfMachine: cpu === null ? null : round(cpu / cores, 1),
      rssMb: measured ? round(product.reduce((n, p) => n + p.rssMb, 0), 1) : null,
      machineCores: cores,
      server: serverUse,
      receivers: { pid: child.pid!, name: 'pels-receivers', cpuPercentOfOneCore: round((100 * report.cpuSeconds) / seconds, 1)!, rssMb: round(report.maxRssMb, 1)!, ...receiversWait },
      ...(cluster ? { nodes: clusterNodes(cluster, await records, hold.snap, end.snap, seconds) } : {}),
    };
  } finally {
    await server?.stop();
    await res.release();
  }
}
