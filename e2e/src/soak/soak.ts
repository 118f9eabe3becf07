/**
 * The soak: minutes of churn and faults at once. Synthetic viewers join and
 * leave all the time, two Chromium viewers watch throughout, the PELS
 * bottleneck's capacity and random loss change every minute, a cluster (Redis,
 * an origin and two edges) runs beside the server (a lost edge is one of the faults), and faults are
 * injected on a schedule. Measures what a long-running server must keep:
 * no crash, every fault recovered, nothing left behind once the viewers have
 * gone, a live heap that does not grow, green delivered outside the faults.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { mulberry32 } from '@pels/shared/pels/syntheticStream';
import { liveMemory } from '../heapAfterGc';
import { applyBottleneck, changeCapacity, changeLoss, defaultGreenQueueBytes, defaultQueuePackets, BOTTLENECK_DEFAULTS } from '../net/pelsBottleneck';
import { createTopology, namespacesOfThisRun } from '../net/topology';
import { childProcesses, getOnce, readResources, type ProcessResources } from '../processResources';
import { startServer, type RunningServer } from '../serverProcess';
import { launchBrowser } from '../testbed/browser';
import { median } from '../testbed/metrics';
import { firstToLastPct, fittedGrowthPct } from './heapGrowth';
import { Resources } from '../testbed/resources';
import { startChurn, type Life } from './churnViewers';
import { startEdgePair } from './edgePair';
import { joinTimes, rejoinTimes, type JoinTimes, type RejoinTimes } from './joinTimes';
import { startLivePublish } from './livePublish';
import { FAULT_KINDS, faultSchedule, type FaultKind } from './faultSchedule';
import { inject, type FaultTarget } from './faults';
import { ingestPace, type FrameCount, type IngestPace } from './ingestPace';
import { RecoveryTracker } from './recovery';

export interface SoakOptions {
  minutes: number;
  /** Synthetic viewers present at once. */
  viewers: number;
  /** Chromium viewers, throughout. */
  chromium: number;
  /** Synthetic viewers on the cluster's two edges, placed by its front (the lost-edge fault), present at once. */
  edgeViewers: number;
  seed: number;
  stayMinS: number;
  stayMaxS: number;
  /** Every fault kind at least once in any window of this many seconds. */
  faultPeriodS: number;
  /** The kinds of fault injected (default: all); fewer to look at one. */
  kinds?: readonly FaultKind[];
  /** Per-minute series, CSV; beside it each synthetic viewer's life, one JSON line each (`-lives.jsonl`), and the server's warnings and errors (`-server.log`). */
  csvFile?: string;
}

export const SOAK_DEFAULTS: SoakOptions = { minutes: 30, viewers: 50, chromium: 2, edgeViewers: 6, seed: 1, stayMinS: 5, stayMaxS: 60, faultPeriodS: 300 };

/** The bottleneck per viewer, and the random loss, each minute: drawn from these. */
const PER_VIEWER_KBPS = [800, 1200, 2000];
const LOSS_PCT = [0, 1, 2, 5];
/** The source: synthetic pictures, so a restart finds it again without a file. */
const SOURCE = 'lavfi:testsrc2=size=640x360:rate=30';
const SOURCE_FPS = 30;
const STREAM_ID = 'default';
/** The live stream, fed by an RTMP publisher, that the last Chromium viewer watches. */
const LIVE_STREAM_ID = 'soak-live';
const RTMP_PORT = 1935;
/** A fault not recovered by then is reported unrecovered, and the run goes on. */
const RECOVERY_TIMEOUT_MS = 60_000;
/** Around a fault, lives are not counted for green delivery: from this much before it to this much after its recovery. */
const FAULT_MARGIN_MS = 2000;
/** Seconds between readings of the live heap within a minute. */
const HEAP_READING_S = 15;

export interface FaultRecord {
  kind: FaultKind;
  /** Seconds into the run. */
  atS: number;
  /** When the fault was over (a stopped process continued, the link up again), seconds into the run. */
  endS?: number;
  description: string;
  /** From the fault's end until every Chromium viewer decodes again; null: not within 60 s, or the injection failed. */
  recoveryMs: number | null;
  /** How fast the watched stream's frames came after the fault's end (until the next fault, at most 20 s): a catch-up shows as more than 1x. */
  ingest?: IngestPace;
  /** Per Chromium viewer: its recovery, and its player's states from the fault's start, each with when it began (s from the fault's end). */
  viewers?: string[];
  error?: string;
}

export interface MinuteRow {
  minute: number;
  capacityKbps: number;
  lossPct: number;
  faults: string;
  livesEnded: number;
  cleanLives: number;
  /** Green frames received over sent, lives that ended this minute without a fault in them. */
  greenDelivery: number | null;
  chromiumFps: number;
  /** The watched stream's fastest second this minute, over its frame rate (1: real time). */
  ingestPeakX: number | null;
  serverViewers: number;
  liveHeapKiB: number;
  /** The part of the live heap that is V8's compiled code and its metadata (the minute's median). */
  codeKiB: number;
  loadAverage: number;
  rssKiB: number;
  fds: number;
  transports: number;
  consumers: number;
}

type LeakCounts = Record<'fds' | 'nftElements' | 'transports' | 'consumers' | 'processes' | 'namespaces', number>;

export interface SoakResult {
  options: SoakOptions;
  /** When the run began (Unix ms): the faults' `atS` count from here, the lives' times are Unix ms. */
  startedMs: number;
  seconds: number;
  crashes: number;
  faultsInjected: number;
  faults: FaultRecord[];
  recovery: Partial<Record<FaultKind, { count: number; maxMs: number | null; medianMs: number | null; unrecovered: number; ingestPeakX: number | null }>>;
  /** `children`: the server's child processes by name, at the start and the end, to name what a process leak left; `new`, when processes grew: those not there at the start, as "pid state command line". */
  leaks: { start: LeakCounts; end: LeakCounts; grew: string[]; children: { start: Record<string, number>; end: Record<string, number>; new: string[] } };
  /** The live heap (each minute the median of its readings), first minute to last. */
  liveHeapGrowthPct: number | null;
  /** The same over the run by a line fitted to every minute: what first-to-last reads without its two readings' swing. */
  liveHeapFittedGrowthPct: number | null;
  /**
   * The live heap without V8's compiled code (first to last, and fitted): what the
   * server's data holds. The code grows as paths first run and get optimized
   * (a fault's recovery, the first time it comes), bounded by the program.
   */
  dataHeapGrowthPct: number | null;
  dataHeapFittedGrowthPct: number | null;
  greenDeliveryMin: number | null;
  greenDelivery: number | null;
  lives: { ended: number; clean: number; failedJoins: number; joinErrors: Record<string, number> };
  /** Join times: lives started in a worker kill's window (its viewers rejoining at once) against lives started outside every fault. */
  joins: { afterWorkerKill: JoinTimes; clean: JoinTimes };
  /** The cluster beside the server: its edges' viewers (outside fault windows, as above), how a lost edge's viewers came back on the other, and what a lost edge left behind. */
  edge: { lives: { ended: number; clean: number; failedJoins: number }; greenDelivery: number | null; rejoins: RejoinTimes; leaks: string[] };
  /** Error-level lines the server logged. */
  serverErrors: number;
  minutes: MinuteRow[];
  csvFile?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Another run's namespaces (a test beside the soak) come and go: not this run's leak. */
async function namespaceCount(): Promise<number> {
  return (await namespacesOfThisRun()).length;
}

/** How many of the server's children have each name. */
function childNames(r: ProcessResources): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of r.children) out[name] = (out[name] ?? 0) + 1;
  return out;
}

/** The server's children not among `before`, each as "pid state command line" (state Z: exited, not reaped). */
function newChildren(serverPid: number, before: ReadonlySet<number>): string[] {
  return childProcesses(serverPid)
    .filter(([pid]) => !before.has(pid))
    .map(([pid, comm, args, state]) => `${pid} ${state} ${[comm, ...args.slice(1)].join(' ').slice(0, 200)}`);
}

function leakCounts(r: ProcessResources, namespaces: number): LeakCounts {
  return { fds: r.fds, nftElements: r.nftMapElements, transports: r.transports, consumers: r.consumers, processes: r.children.length, namespaces };
}

async function liveKiB(server: RunningServer): Promise<{ live: number; code: number }> {
  const m = await liveMemory(server.inspectorUrl!);
  return { live: m.heapUsedKiB + m.externalKiB, code: m.codeKiB };
}

/** Each page's decoded-frame counter (-1 for a page that did not answer) and its player's state (with its error). */
async function playerSamples(pages: Page[]): Promise<Array<{ frames: number; state: string; fps: string; pli: number }>> {
  return Promise.all(
    pages.map((p) =>
      p
        .evaluate(() => ({ frames: window.pels?.stats().framesDecoded.total ?? 0, pli: window.pels?.stats().pliSent ?? 0, fps: ((f) => (f ? `${f.tid0}/${f.tid1}/${f.tid2}` : '-'))(window.pels?.stats().fps), state: window.pels ? `${window.pels.state}${window.pels.error ? ` (${window.pels.error})` : ''}` : 'no player' }))
        .catch(() => ({ frames: -1, state: 'no answer', fps: '-', pli: 0 })),
    ),
  );
}

export async function runSoak(o: SoakOptions, progress: (m: string) => void): Promise<SoakResult> {
  const res = new Resources();
  const random = mulberry32(o.seed);
  const seconds = Math.round(o.minutes * 60);
  const short = seconds < 600;
  const schedule = faultSchedule({ seconds, warmupS: short ? 25 : 60, drainS: short ? 15 : 60, periodS: o.faultPeriodS, random, ...(o.kinds ? { kinds: o.kinds } : {}) });
  try {
    const topo = await createTopology();
    res.add(() => topo.destroy());
    const present = o.viewers + o.chromium;
    let capacityKbps = present * PER_VIEWER_KBPS[PER_VIEWER_KBPS.length - 1]!;
    let lossPct = 0;
    await applyBottleneck(topo.serverNs, topo.bottleneckDev, {
      ...BOTTLENECK_DEFAULTS,
      capacityKbps,
      lossPct,
      kind: 'pels',
      queuePackets: defaultQueuePackets(capacityKbps),
    });
    const operatorToken = randomBytes(24).toString('base64url');
    // Beside the soak's server, started while it starts; only for the lost-edge fault.
    const edgesStarting = schedule.some((f) => f.kind === 'edge-loss')
      ? startEdgePair({ netns: topo.serverNs, host: topo.serverControlIp, operatorToken, viewers: o.edgeViewers, stayMinS: o.stayMinS, stayMaxS: o.stayMaxS, log: progress })
      : Promise.resolve(undefined);
    res.add(async () => (await edgesStarting.catch(() => undefined))?.stop());
    let serverErrors = 0;
    /** Warning and error lines, to find after the run what a leak or a slow recovery followed. */
    const serverWarnings: string[] = [];
    const server = await startServer({
      env: {
        OPERATOR_TOKEN: operatorToken,
        SOURCE,
        RTC_LISTEN_IP: topo.serverIp,
        HOST: '0.0.0.0',
        // Every viewer comes from the one viewers' address: the per-address and viewer limits must not turn them away.
        MAX_VIEWERS: String(present + 16),
        MAX_VIEWERS_PER_ADDRESS: String(present + 16),
        MAX_SOCKETS_PER_ADDRESS: String(present + 32),
        RTMP: 'on',
        RTMP_PORT: String(RTMP_PORT),
      },
      netns: topo.serverNs,
      controlHost: topo.serverControlIp,
      inspect: true,
      onLog: (line) => {
        if (/"level":(40|50|60)/.test(line)) serverWarnings.push(line);
        if (/"level":(50|60)/.test(line)) {
          serverErrors++;
          progress(`server: ${line.slice(0, 300)}`);
        }
      },
    });
    res.add(() => server.stop());
    const resources = () => readResources(server.pid, server.port, server.url, operatorToken, topo.serverNs);
    const viewerBase = `http://${topo.serverIp}:${server.port}`;
    const streamList = async () => (JSON.parse((await getOnce(`${server.url}/api/streams`)).body) as { streams: Array<{ id: string; state: string; framesIngested: number }> }).streams;
    // Running with a second of frames: by then the stream's every process (encoders, quality decoders) has started.
    const streamRunning = async (id: string) => (await streamList()).some((s) => s.id === id && s.state === 'running' && s.framesIngested >= 30);
    for (const deadline = Date.now() + 30_000; !(await streamRunning(STREAM_ID)); await sleep(250)) {
      if (Date.now() > deadline) throw new Error('the stream did not start in 30 s');
    }
    const live = await startLivePublish({ serverUrl: server.url, operatorToken, streamId: LIVE_STREAM_ID, host: topo.serverControlIp, port: RTMP_PORT });
    res.add(() => live.stop());
    for (const deadline = Date.now() + 30_000; !(await streamRunning(LIVE_STREAM_ID)); await sleep(250)) {
      if (Date.now() > deadline) throw new Error('the live stream did not start in 30 s of its publisher');
    }
    const edges = await edgesStarting;
    const edgeLeaks: string[] = [];
    await sleep(2000);
    const atStart = await resources();
    const pidsAtStart = new Set(childProcesses(server.pid).map(([pid]) => pid));
    const start = leakCounts(atStart, await namespaceCount());
    let atEnd = atStart;
    progress(`server up; start counts ${JSON.stringify(start)}`);

    const browser = await launchBrowser(topo, viewerBase, res);
    const pages: Page[] = [];
    for (let i = 0; i < o.chromium; i++) {
      const page = await (await browser.newContext()).newPage();
      // The last one watches the live stream (with one Chromium viewer, the file stream only).
      await page.goto(`${viewerBase}/?stream=${i > 0 && i === o.chromium - 1 ? LIVE_STREAM_ID : STREAM_ID}`);
      pages.push(page);
    }
    const lives: Life[] = [];
    const churn = startChurn({
      count: o.viewers,
      url: viewerBase,
      streamId: STREAM_ID,
      netns: topo.clientNs,
      stayMinS: o.stayMinS,
      stayMaxS: o.stayMaxS,
      rampPerSecond: 5,
      onLife: (l) => lives.push(l),
      log: (m) => {
        if (!/"event":"joined"/.test(m)) progress(m);
      },
    });
    res.add(() => churn.stop());
    progress(`${o.chromium} Chromium and ${o.viewers} churning synthetic viewers; ${schedule.length} faults scheduled over ${seconds} s (seed ${o.seed})`);

    const target: FaultTarget = {
      serverPid: server.pid,
      serverUrl: server.url,
      serverPort: server.port,
      operatorToken,
      streamId: STREAM_ID,
      source: SOURCE,
      ingestArg: 'testsrc2',
      publisher: live,
      serverNs: topo.serverNs,
      bottleneckDev: topo.bottleneckDev,
      edge: { killEdge: () => (edges ? edges.killEdge() : Promise.reject(new Error('no origin-edge pair'))) },
    };
    const t0 = Date.now();
    const faults: FaultRecord[] = [];
    const windows: Array<{ from: number; to: number }> = [];
    /** The watched stream's frame counter, monotonic across its restarts (a new stream counts from 0). */
    const ingest: FrameCount[] = [];
    let ingestRaw = 0;
    let ingestTotal = 0;
    const sampleIngest = async () => {
      const raw = (await streamList().catch(() => [])).find((x) => x.id === STREAM_ID)?.framesIngested;
      if (raw === undefined) return;
      ingestTotal += raw >= ingestRaw ? raw - ingestRaw : raw;
      ingestRaw = raw;
      ingest.push({ t: Date.now(), frames: ingestTotal });
    };
    let crashed = false;
    let samples = await playerSamples(pages);
    let frames = samples.map((x) => x.frames);
    /** Frames each page decoded since the start, over its sessions: a player that rejoins counts from 0 again. */
    const decoded = pages.map(() => 0);
    let decodedAtMinute = [...decoded];

    /**
     * The counters a few times a second, for the fault loop's recovery and the minutes' rates, until the last fault is
     * over: a fault the ones before pushed past the run's last minute (a lost edge's restart takes 20 s) is still seen.
     */
    let faultsOver = false;
    const sampler = (async () => {
      while (!faultsOver && !crashed) {
        await sleep(250);
        samples = await playerSamples(pages);
        const now = samples.map((x) => x.frames);
        now.forEach((f, i) => {
          if (f >= 0 && frames[i]! >= 0) decoded[i]! += f >= frames[i]! ? f - frames[i]! : f;
        });
        frames = now;
        await sampleIngest();
        if (!server.running()) {
          crashed = true;
          progress('the server exited');
        }
      }
    })();

    /** Faults in order, each once the one before has recovered (or timed out). */
    const faultLoop = (async () => {
      for (const f of schedule) {
        while (Date.now() - t0 < f.atS * 1000) {
          if (crashed) return;
          await sleep(200);
        }
        if (crashed) return;
        const begin = Date.now();
        const rec: FaultRecord = { kind: f.kind, atS: Math.round((begin - t0) / 100) / 10, description: '', recoveryMs: null };
        faults.push(rec);
        progress(`fault at ${rec.atS} s: ${f.kind}`);
        try {
          rec.description = await inject(f.kind, target);
        } catch (err) {
          rec.error = (err as Error).message;
          progress(`fault ${f.kind} could not be injected: ${rec.error}`);
          windows.push({ from: begin - FAULT_MARGIN_MS, to: Date.now() + FAULT_MARGIN_MS });
          continue;
        }
        const end = Date.now();
        rec.endS = Math.round((end - t0) / 100) / 10;
        if (f.kind === 'edge-loss') {
          // Recovered when a viewer placed by the front after the loss decodes (on the other edge): the Chromium viewers are not on the edges.
          const r = await edges!.recover(end);
          rec.recoveryMs = r.recoveryMs;
          rec.description += `; ${r.steps}`;
          edgeLeaks.push(...r.leaks);
        } else {
          const tracker = new RecoveryTracker(begin, end, frames);
          const timelines = pages.map(() => [] as Array<{ t: number; state: string }>);
          const pliAtStart = samples.map((x) => x.pli);
          for (;;) {
            tracker.sample(Date.now(), frames);
            samples.forEach((x, i) => {
              if (timelines[i]!.at(-1)?.state !== x.state) timelines[i]!.push({ t: Date.now(), state: x.state });
            });
            const r = tracker.recoveryMs(Date.now());
            if (r !== 'pending') {
              rec.recoveryMs = r;
              break;
            }
            if (Date.now() - end > RECOVERY_TIMEOUT_MS || crashed) break;
            await sleep(250);
          }
          const back = tracker.perViewer(Date.now());
          rec.viewers = timelines.map((tl, i) => `${back[i]!.backMs === null ? 'not back' : `back ${back[i]!.backMs} ms`} (first frame ${back[i]!.firstFrameMs ?? '-'} ms, then ${samples[i]!.fps} fps by layer, ${samples[i]!.pli - pliAtStart[i]!} PLIs sent): ${tl.map((x) => `${x.state} ${((x.t - end) / 1000).toFixed(1)}`).join(', ')}`);
        }
        windows.push({ from: begin - FAULT_MARGIN_MS, to: (rec.recoveryMs === null ? Date.now() : end + rec.recoveryMs) + FAULT_MARGIN_MS });
        progress(`  ${rec.description}: ${rec.recoveryMs === null ? 'NOT recovered' : `recovered in ${rec.recoveryMs} ms`}${rec.viewers ? `; ${rec.viewers.join('; ')}` : ''}`);
      }
    })();

    const minutes: MinuteRow[] = [];
    const heap: number[] = [];
    const dataHeap: number[] = [];
    let livesSeen = 0;
    const minuteCount = Math.ceil(seconds / 60);
    for (let m = 1; m <= minuteCount && !crashed; m++) {
      const minuteEnd = t0 + Math.min(m * 60, seconds) * 1000;
      // The live heap read every 15 s: the minute's is their median (heapGrowth.ts).
      const heapReadings: Array<{ live: number; code: number }> = [];
      for (let at = t0 + ((m - 1) * 60 + HEAP_READING_S) * 1000; at < minuteEnd && !crashed; at += HEAP_READING_S * 1000) {
        while (Date.now() < at && !crashed) await sleep(250);
        if (!crashed) heapReadings.push(await liveKiB(server));
      }
      while (Date.now() < minuteEnd && !crashed) await sleep(250);
      if (crashed) break;
      const faultsThisMinute = faults.filter((f) => f.atS >= (m - 1) * 60 && f.atS < m * 60).map((f) => f.kind);
      const ended = lives.slice(livesSeen);
      livesSeen = lives.length;
      const clean = ended.filter((l) => l.joinedMs > 0 && !l.cut && !windows.some((w) => l.joinedMs < w.to && l.leftMs > w.from));
      const sent = clean.reduce((n, l) => n + l.green.sent, 0);
      const received = clean.reduce((n, l) => n + l.green.received, 0);
      const r = await resources();
      const mem = await liveKiB(server);
      const readings = [...heapReadings, mem];
      const live = median(readings.map((x) => x.live))!;
      const code = median(readings.map((x) => x.code))!;
      heap.push(live);
      dataHeap.push(median(readings.map((x) => x.live - x.code))!);
      const fps = decoded.reduce((n, f, i) => n + f - decodedAtMinute[i]!, 0) / decoded.length / 60;
      decodedAtMinute = [...decoded];
      const viewersNow = (JSON.parse((await getOnce(`${server.url}/api/viewers`, { authorization: `Bearer ${operatorToken}` })).body) as { viewers: unknown[] }).viewers.length;
      minutes.push({
        minute: m,
        capacityKbps,
        lossPct,
        faults: faultsThisMinute.join(' '),
        livesEnded: ended.length,
        cleanLives: clean.length,
        greenDelivery: sent > 0 ? Math.round((received / sent) * 10000) / 10000 : null,
        chromiumFps: Math.round(fps * 10) / 10,
        ingestPeakX: ingestPace(ingest, minuteEnd - 60_000, minuteEnd, SOURCE_FPS)?.peakX ?? null,
        serverViewers: viewersNow,
        liveHeapKiB: live,
        codeKiB: code,
        loadAverage: loadavg()[0]!,
        rssKiB: r.rssKiB,
        fds: r.fds,
        transports: r.transports,
        consumers: r.consumers,
      });
      progress(`minute ${m}: ${JSON.stringify(minutes.at(-1))}`);
      // The next minute's network.
      if (m < minuteCount) {
        capacityKbps = present * PER_VIEWER_KBPS[Math.floor(random() * PER_VIEWER_KBPS.length)]!;
        lossPct = LOSS_PCT[Math.floor(random() * LOSS_PCT.length)]!;
        await changeCapacity(topo.serverNs, topo.bottleneckDev, {
          capacityKbps,
          internetShare: BOTTLENECK_DEFAULTS.internetShare,
          kind: 'pels',
          queuePackets: defaultQueuePackets(capacityKbps),
          greenQueueBytes: defaultGreenQueueBytes(capacityKbps),
        });
        await changeLoss(topo.serverNs, topo.bottleneckDev, lossPct);
      }
    }
    await faultLoop;
    faultsOver = true;
    await sampler;
    faults.forEach((f, i) => {
      if (f.endS === undefined) return;
      const end = t0 + f.endS * 1000;
      const next = faults[i + 1];
      const to = Math.min(end + 20_000, next ? t0 + next.atS * 1000 : Infinity);
      const pace = ingestPace(ingest, end, to, SOURCE_FPS);
      if (pace) f.ingest = pace;
    });

    // Everyone leaves; then what the server holds must be what it held before anyone came.
    await churn.stop();
    await browser.close();
    let end = start;
    if (!crashed) {
      const back = (c: LeakCounts) => c.transports === start.transports && c.consumers === start.consumers && c.nftElements === start.nftElements && c.processes === start.processes && c.fds <= start.fds;
      for (const deadline = Date.now() + 30_000; ; await sleep(500)) {
        atEnd = await resources();
        end = leakCounts(atEnd, await namespaceCount());
        if (back(end) || Date.now() > deadline) break;
      }
    }
    const grew = (Object.keys(start) as Array<keyof LeakCounts>).filter((k) => end[k] > start[k]);
    const cleanRows = minutes.filter((m) => m.greenDelivery !== null);
    const allClean = lives.filter((l) => l.joinedMs > 0 && !l.cut && !windows.some((w) => l.joinedMs < w.to && l.leftMs > w.from));
    const greenSent = allClean.reduce((n, l) => n + l.green.sent, 0);
    const edgeLives = edges?.lives ?? [];
    const edgeClean = edgeLives.filter((l) => l.joinedMs > 0 && !l.cut && !windows.some((w) => l.joinedMs < w.to && l.leftMs > w.from));
    const edgeGreenSent = edgeClean.reduce((n, l) => n + l.green.sent, 0);
    const workerKills = faults.flatMap((f) => (f.kind === 'worker-kill' && f.endS !== undefined ? [{ from: t0 + f.atS * 1000, to: t0 + f.endS * 1000 + (f.recoveryMs ?? RECOVERY_TIMEOUT_MS) + FAULT_MARGIN_MS }] : []));
    const recovery: SoakResult['recovery'] = {};
    for (const kind of FAULT_KINDS) {
      const of = faults.filter((f) => f.kind === kind);
      if (of.length === 0) continue;
      const ms = of.flatMap((f) => (f.recoveryMs === null ? [] : [f.recoveryMs]));
      const peaks = of.flatMap((f) => (f.ingest ? [f.ingest.peakX] : []));
      recovery[kind] = { count: of.length, maxMs: ms.length ? Math.max(...ms) : null, medianMs: median(ms), unrecovered: of.length - ms.length, ingestPeakX: peaks.length ? Math.max(...peaks) : null };
    }
    const result: SoakResult = {
      options: o,
      startedMs: t0,
      seconds: Math.round((Date.now() - t0) / 1000),
      crashes: crashed ? 1 : 0,
      faultsInjected: faults.filter((f) => f.error === undefined).length,
      faults,
      recovery,
      leaks: { start, end, grew, children: { start: childNames(atStart), end: childNames(atEnd), new: grew.includes('processes') ? newChildren(server.pid, pidsAtStart) : [] } },
      liveHeapGrowthPct: firstToLastPct(heap),
      liveHeapFittedGrowthPct: fittedGrowthPct(heap),
      dataHeapGrowthPct: firstToLastPct(dataHeap),
      dataHeapFittedGrowthPct: fittedGrowthPct(dataHeap),
      greenDeliveryMin: cleanRows.length ? Math.min(...cleanRows.map((m) => m.greenDelivery!)) : null,
      greenDelivery: greenSent > 0 ? Math.round((allClean.reduce((n, l) => n + l.green.received, 0) / greenSent) * 10000) / 10000 : null,
      lives: { ended: lives.length, clean: allClean.length, failedJoins: lives.filter((l) => l.joinedMs === 0 && !l.cut).length, joinErrors: tally(lives.flatMap((l) => (l.joinedMs === 0 && !l.cut ? [l.error ?? 'no error given'] : []))) },
      joins: { afterWorkerKill: joinTimes(lives, workerKills, true), clean: joinTimes(lives, windows, false) },
      edge: {
        lives: { ended: edgeLives.length, clean: edgeClean.length, failedJoins: edgeLives.filter((l) => l.joinedMs === 0 && !l.cut).length },
        greenDelivery: edgeGreenSent > 0 ? Math.round((edgeClean.reduce((n, l) => n + l.green.received, 0) / edgeGreenSent) * 10000) / 10000 : null,
        rejoins: rejoinTimes(edgeLives),
        leaks: edgeLeaks,
      },
      serverErrors,
      minutes,
    };
    if (o.csvFile) {
      await mkdir(dirname(o.csvFile), { recursive: true });
      await writeFile(o.csvFile, minutesCsv(minutes));
      await writeFile(besideCsv(o.csvFile, '-lives.jsonl'), lives.map((l) => JSON.stringify(l) + '\n').join(''));
      await writeFile(besideCsv(o.csvFile, '-server.log'), serverWarnings.map((l) => l + '\n').join(''));
      result.csvFile = o.csvFile;
    }
    return result;
  } finally {
    await res.release();
  }
}

/** How many times each message occurs, digits folded so that ids and counts do not split one kind into many. */
function tally(messages: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of messages) {
    const k = m.replace(/\d+/g, 'N').slice(0, 160);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** A file beside a run's per-minute series `csvFile`: its name with `suffix` for `.csv`. */
function besideCsv(csvFile: string, suffix: '-lives.jsonl' | '-server.log'): string {
  return csvFile.replace(/(\.csv)?$/, suffix);
}

export function minutesCsv(rows: readonly MinuteRow[]): string {
  const cols = ['minute', 'capacityKbps', 'lossPct', 'faults', 'livesEnded', 'cleanLives', 'greenDelivery', 'chromiumFps', 'ingestPeakX', 'serverViewers', 'liveHeapKiB', 'codeKiB', 'rssKiB', 'fds', 'transports', 'consumers', 'loadAverage'] as const;
  return [cols.join(','), ...rows.map((r) => cols.map((c) => String(r[c] ?? '')).join(','))].join('\n') + '\n';
}

/** The report as lines of text: the targets' figures, then one line per fault kind. */
export function formatSoakReport(r: SoakResult): string[] {
  const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 1000) / 10}%`);
  const joins = (j: JoinTimes) => `${j.started} (${j.failed} failed), join median ${j.medianMs ?? '-'} ms, p90 ${j.p90Ms ?? '-'}, max ${j.maxMs ?? '-'}`;
  const lines = [
    `${r.options.minutes} min (${r.seconds} s), ${r.options.viewers} churning synthetic viewers (stays ${r.options.stayMinS}-${r.options.stayMaxS} s), ${r.options.chromium} Chromium, seed ${r.options.seed}`,
    `crashes ${r.crashes}   faults injected ${r.faultsInjected}   server errors logged ${r.serverErrors}`,
    `green delivery outside faults: lowest minute ${pct(r.greenDeliveryMin)}, overall ${pct(r.greenDelivery)} (${r.lives.clean} of ${r.lives.ended} lives clean, ${r.lives.failedJoins} failed joins)`,
    ...Object.entries(r.lives.joinErrors).map(([m, n]) => `  ${n} x join failed: ${m}`),
    `live heap growth, first minute to last: ${r.liveHeapGrowthPct ?? '-'}%; by a line fitted to every minute: ${r.liveHeapFittedGrowthPct ?? '-'}%`,
    `  without the compiled code (${r.minutes[0]?.codeKiB ?? '-'} -> ${r.minutes.at(-1)?.codeKiB ?? '-'} KiB): ${r.dataHeapGrowthPct ?? '-'}%, fitted ${r.dataHeapFittedGrowthPct ?? '-'}%`,
    ...(r.faults.some((f) => f.kind === 'worker-kill') ? [`joins started in a worker kill's window: ${joins(r.joins.afterWorkerKill)}; outside every fault: ${joins(r.joins.clean)}`] : []),
    ...(r.faults.some((f) => f.kind === 'edge-loss')
      ? [
          `cluster (2 edges): ${r.edge.lives.ended} lives on the edges (${r.edge.lives.clean} clean, ${r.edge.lives.failedJoins} failed joins), green ${pct(r.edge.greenDelivery)}; a lost edge's viewers back on the other: ${r.edge.rejoins.lost - r.edge.rejoins.notBack} of ${r.edge.rejoins.lost}, median ${r.edge.rejoins.medianMs ?? '-'} ms, max ${r.edge.rejoins.maxMs ?? '-'} ms; a lost edge left ${r.edge.leaks.length ? r.edge.leaks.join('; ') : 'nothing behind'}`,
        ]
      : []),
    `after every viewer left: ${(Object.keys(r.leaks.start) as Array<keyof typeof r.leaks.start>).map((k) => `${k} ${r.leaks.start[k]} -> ${r.leaks.end[k]}`).join(', ')}${r.leaks.grew.length ? `   GREW: ${r.leaks.grew.join(', ')}` : ''}`,
    ...r.leaks.children.new.map((c) => `  a child not there at the start: ${c}`),
    'fault            count  recovery median  max (ms)  unrecovered  ingest after it, fastest second (x real time)',
  ];
  for (const [kind, v] of Object.entries(r.recovery)) {
    lines.push(`${kind.padEnd(17)}${String(v.count).padEnd(7)}${String(v.medianMs ?? '-').padEnd(17)}${String(v.maxMs ?? '-').padEnd(10)}${String(v.unrecovered).padEnd(13)}${v.ingestPeakX ?? '-'}`);
  }
  for (const f of r.faults.filter((x) => x.recoveryMs === null)) lines.push(`NOT recovered: ${f.kind} at ${f.atS} s (${f.error ?? f.description})`);
  if (r.csvFile) lines.push(`per minute: ${r.csvFile}`);
  return lines;
}
