/**
 * The testbed: the server, an emulated PELS bottleneck and N headless Chromium
 * viewers, for end-to-end experiments. Used by `npm run testbed`, the
 * end-to-end tests and the benchmarks.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { FlowModeName, ViewerState } from '@pels/shared/protocol/api';
import type { RateControllerName } from '@pels/shared/rate/names';
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import type { PlayerStats } from '@pels/shared/protocol/playerHook';
import type { RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';
import { applyRouter, changeCapacity, defaultQueuePackets, readRouterCounters, ROUTER_DEFAULTS, routerModeOf, type RouterCounters, type RouterMode } from '../net/pelsRouter';
import { RouterAgent } from '../net/routerAgent';
import { UptaAgent, type UptaChange } from '../net/uptaAgent';
import { createTopology, type Topology } from '../net/topology';
import { startServer, type RunningServer } from '../serverProcess';
import { capacityAt, type CapacityStep } from './capacitySteps';
import { congestionOf, congestionSummary, serverCounters, type ServerCounters, intervalLoss, jainIndex, mean, median, psnrSummary, round, timeToFullRateMs, type CongestionSummary, type DisplaySample } from './metrics';
import { launchBrowser } from './browser';
import { TreeCpu } from './processCpu';
import { Resources } from './resources';
import { startSyntheticViewers, type SyntheticViewers } from './syntheticViewers';
import { summarizeReceivers, type FrameDelivery, type ReceiverResult, type ReceiversReport, type ReceiversSummary } from '../loadtest/receiverReport';
import { TcpFlows, TCP_PORT, type TcpFlowEnd, type TcpOptions } from '../tcp/tcpFlows';
import { tcpFlowResults, videoGoodputKbps, type TcpFlowResult } from './tcpMetrics';

export interface TestbedOptions {
  /** Chromium viewers. */
  viewers: number;
  /** Synthetic viewers (receivers/: real WebRTC, no decoding) beside them, in the viewers' namespace. */
  synthetic: number;
  seconds: number;
  mode: FlowModeName;
  /** The bottleneck's queues; undefined: the flow mode's own (routerModeOf). The flows keep their mode's sender and marking either way. */
  router?: RouterMode;
  feedback: 'rtcp' | 'router';
  /** Bottleneck rate; undefined: no shaping. */
  capacityKbps: number | undefined;
  lossPct: number;
  /** Router sampling interval T for eq. 11. */
  routerIntervalMs: number;
  /** Green/yellow queue limit; undefined: about 500 ms of the link. */
  queuePackets: number | undefined;
  redQueuePackets: number;
  internetShare: number;
  source: string | undefined;
  /** Where the per-second time series goes (a CSV file); undefined: not written. */
  timeseriesFile: string | undefined;
  /** Extra server environment (controller parameters). */
  serverEnv?: Record<string, string>;
  /** Each viewer's rate controller (`?cc=`), cycled over the viewers; empty: the server's default. */
  controllers: readonly RateControllerName[];
  /** Changes of the bottleneck's capacity during the run, in time order (needs capacityKbps). */
  capacitySteps: readonly CapacityStep[];
  /** Bulk TCP flows through the bottleneck; undefined: none. */
  tcp?: TcpOptions;
  /** Useless-packet avoidance at the router: a video flow's loss threshold; undefined: off. */
  upta?: number;
  /** A directory for screenshots at the end of the run: each viewer's page (`viewer-N.png`) and the dashboard (`dashboard.png`). */
  screenshotDir?: string;
}

export const TESTBED_DEFAULTS: TestbedOptions = {
  viewers: 1,
  synthetic: 0,
  seconds: 30,
  mode: 'pels',
  feedback: 'rtcp',
  capacityKbps: undefined,
  lossPct: 0,
  routerIntervalMs: 100,
  queuePackets: undefined,
  redQueuePackets: ROUTER_DEFAULTS.redQueuePackets,
  internetShare: ROUTER_DEFAULTS.internetShare,
  source: undefined,
  timeseriesFile: undefined,
  controllers: [],
  capacitySteps: [],
};


interface PlayerSample {
  stats: PlayerStats;
  /** The player's state ('playing', 'connecting', 'error', ...). */
  state: string;
  /** Why its last session failed, until it plays again. */
  error: string | undefined;
  viewerId: string | undefined;
  /** Page load to its first decoded frame, ms; undefined before it. */
  firstFrameMs: number | undefined;
  /** The same instant on the wall clock (ms since the epoch), to compare with the server's: undefined before it. */
  firstFrameAtMs: number | undefined;
  /** The player's UPTA banner (base layer only, or paused), when it shows one. */
  upta?: string;
}

/** One second of the run. */
export interface Sample {
  t: number;
  /** The server's clock when it read the viewer states (ms since the epoch), when known. */
  atMs: number | null;
  players: (PlayerSample | null)[];
  /** Server state of each player's viewer (same order), when known. */
  api: (ViewerState | null)[];
  /** Measured full rate of each player's stream (same order), kb/s, when known. */
  streamKbps: (number | null)[];
  router: RouterCounters | null;
  routerFeedback: RouterFeedbackState | null;
  /** The bottleneck's capacity at this second, kb/s; null: no bottleneck. */
  capacityKbps: number | null;
  /** Each TCP flow's bytes received so far; null: no TCP flows running yet. */
  tcpBytes: number[] | null;
}

export type Progress = (msg: string) => void;

/** Synthetic viewers joining a second: one join takes a few hundred ms, mostly DSCP marking and ICE. */
const SYNTHETIC_RAMP_PER_SECOND = 10;

/** The summary and the per-second samples it was made from. */
export interface TestbedRun {
  result: TestbedResult;
  samples: Sample[];
}

/**
 * `stopWhen`, for tests: the run ends at the first sample after which it holds (what the test waits for has been
 * seen), rather than at `o.seconds`; the averages then cover the later half of the seconds run (the players' PSNR
 * from `o.seconds` / 2, when reached).
 */
export async function runTestbed(o: TestbedOptions, progress: Progress, stopWhen?: (samples: readonly Sample[]) => boolean): Promise<TestbedRun> {
  const res = new Resources();
  const onSignal = () => void res.release().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const routerMode = o.router ?? routerModeOf(o.mode);
  try {
    let topo: Topology | null = null;
    if (o.capacityKbps !== undefined || o.lossPct > 0 || o.feedback === 'router' || o.tcp || process.getuid?.() === 0) {
      topo = await createTopology();
      res.add(() => topo!.destroy());
      progress(`namespaces ${topo.serverNs} (server ${topo.serverIp}) and ${topo.clientNs} (viewers ${topo.clientIp})`);
      if (o.capacityKbps !== undefined) {
        await applyRouter(topo.serverNs, topo.bottleneckDev, {
          capacityKbps: o.capacityKbps,
          lossPct: o.lossPct,
          mode: routerMode,
          internetShare: o.internetShare,
          queuePackets: o.queuePackets ?? defaultQueuePackets(o.capacityKbps),
          redQueuePackets: o.redQueuePackets,
          internetQueuePackets: ROUTER_DEFAULTS.internetQueuePackets,
          ...(o.tcp?.queue === 'shared' ? { sharedTcpPort: TCP_PORT } : {}),
          ...(o.upta !== undefined ? { uptaClass: true } : {}),
        });
        progress(`router: ${o.capacityKbps} kb/s, ${routerMode === 'pels' ? 'PELS priority queues' : 'one FIFO'}, loss ${o.lossPct}%`);
      }
    } else if (o.tcp) {
      throw new Error('TCP flows need network namespaces (root)');
    } else {
      progress('not root: viewers on loopback, no bottleneck');
    }
    // The viewer list is operator API, router feedback the router agent's: this run's own tokens.
    const operatorToken = randomBytes(24).toString('base64url');
    const routerToken = randomBytes(24).toString('base64url');
    const operator = { authorization: `Bearer ${operatorToken}` };
    const server: RunningServer = await startServer({
      env: {
        OPERATOR_TOKEN: operatorToken,
        ROUTER_TOKEN: routerToken,
        FEEDBACK: o.feedback,
        ...(o.source ? { SOURCE: o.source } : {}),
        ...(topo ? { RTC_LISTEN_IP: topo.serverIp, HOST: '0.0.0.0' } : {}),
        // Every viewer joins from the viewers' one address: the per-address and viewer limits must not turn them away.
        MAX_VIEWERS_PER_ADDRESS: String(o.viewers + o.synthetic),
        MAX_SOCKETS_PER_ADDRESS: String(o.viewers + o.synthetic + 16),
        ...(o.synthetic > 0 ? { MAX_VIEWERS: String(o.viewers + o.synthetic) } : {}),
        ...o.serverEnv,
      },
      ...(topo ? { netns: topo.serverNs, controlHost: topo.serverControlIp } : {}),
      onLog: (line) => progress(`server: ${line}`),
    });
    res.add(() => server.stop());
    const viewerBase = topo ? `http://${topo.serverIp}:${server.port}` : server.url;

    let agent: RouterAgent | null = null;
    if (topo && o.capacityKbps !== undefined && o.feedback === 'router') {
      agent = new RouterAgent({
        ns: topo.serverNs,
        dev: topo.bottleneckDev,
        intervalMs: o.routerIntervalMs,
        linkKbps: o.capacityKbps,
        internetShare: o.internetShare,
        mode: routerMode,
        routerId: topo.serverNs,
        deliver: async (fb) => {
          const r = await fetch(`${server.url}/api/router-feedback`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${routerToken}` }, body: JSON.stringify(fb) });
          if (!r.ok) throw new Error(`router feedback rejected: ${r.status}`);
        },
      });
      await agent.start();
      res.add(async () => agent!.stop());
    }

    let upta: UptaAgent | null = null;
    if (topo && o.capacityKbps !== undefined && o.upta !== undefined) {
      upta = new UptaAgent({ ns: topo.serverNs, dev: topo.bottleneckDev, linkKbps: o.capacityKbps, threshold: o.upta, intervalMs: o.routerIntervalMs, tcpPort: TCP_PORT });
      await upta.start();
      res.add(() => upta!.stop());
      progress(`useless-packet avoidance at the router: video loss threshold ${o.upta}`);
    }

    const browser = o.viewers > 0 ? await launchBrowser(topo, viewerBase, res) : null;
    const pages: { page: Page; pageErrors: string[]; signaling: { bytes: number } }[] = [];
    for (let i = 0; i < o.viewers; i++) {
      const page = await (await browser!.newContext()).newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      const signaling = { bytes: 0 };
      page.on('websocket', (ws) => ws.on('framereceived', (f) => (signaling.bytes += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length)));
      const cc = o.controllers.length > 0 ? `&cc=${o.controllers[i % o.controllers.length]}` : '';
      const loaded = await page.goto(`${viewerBase}/?mode=${o.mode}${cc}`);
      // Say why rather than run a viewer without a player (e.g. the player not built: 503).
      if (loaded && !loaded.ok()) throw new Error(`the player's page answered ${loaded.status()}: ${(await loaded.text()).trim()}`);
      pages.push({ page, pageErrors, signaling });
    }
    let synthetic: SyntheticViewers | null = null;
    if (o.synthetic > 0) {
      // The second half of the run, as the other averages.
      const halfS = Math.floor(o.seconds / 2);
      synthetic = startSyntheticViewers({ count: o.synthetic, url: viewerBase, mode: o.mode, netns: topo?.clientNs, warmupSeconds: halfS, rampPerSecond: SYNTHETIC_RAMP_PER_SECOND, log: progress });
      res.add(() => synthetic!.stop());
      const { failed } = await synthetic.joined;
      if (failed > 0) progress(`${failed} synthetic viewer(s) failed to join`);
    }
    progress(`${o.viewers} viewer(s)${o.synthetic > 0 ? ` and ${o.synthetic} synthetic` : ''} started; running ${o.seconds} s`);

    const cpu = new TreeCpu({ server: server.pid, browser: process.pid });
    const playerSample = (p: Page): Promise<PlayerSample | null> =>
      p
        .evaluate(() => {
          const pels = window.pels;
          const firstFrameAtMs = pels?.firstFrameMs === undefined ? undefined : performance.timeOrigin + pels.firstFrameMs;
          return pels
            ? { stats: pels.stats(), state: pels.state, error: pels.error, viewerId: pels.viewerId, firstFrameMs: pels.firstFrameMs, firstFrameAtMs, upta: pels.upta }
            : null;
        })
        .catch(() => null);
    const api = async <T>(path: string): Promise<T | null> =>
      fetch(`${server.url}${path}`, { headers: operator, signal: AbortSignal.timeout(2000) }).then((r) => (r.ok ? (r.json() as Promise<T>) : null), () => null);

    let tcp: TcpFlows | null = null;
    const startTcp = async (): Promise<void> => {
      tcp = await TcpFlows.start(topo!, o.tcp!);
      res.add(() => tcp!.stop());
      progress(`${o.tcp!.flows} TCP flow(s) started (${tcp.congestionControl}, ${o.tcp!.queue} queue)`);
    };
    if (o.tcp && o.tcp.startS === 0) await startTcp();
    const samples: Sample[] = [];
    /** The server's snapshot at each sample: the synthetic viewers' states are picked from it by id at the end. */
    const snapshots: (OperatorSnapshot | null)[] = [];
    /** Each page's clock at the start of the second half, for its display samples. */
    let halfAt: number[] = pages.map(() => 0);
    const t0 = Date.now();
    for (const p of pages) p.signaling.bytes = 0;
    const steps = startCapacitySteps(o, routerMode, topo, agent, t0, progress);
    res.add(async () => steps.cancel());
    for (let s = 1; s <= o.seconds; s++) {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + s * 1000 - Date.now())));
      const players = await Promise.all(pages.map((p) => playerSample(p.page)));
      const snapshot = await api<OperatorSnapshot>('/api/operator/snapshot');
      const viewers = snapshot?.viewers ?? [];
      const routerFeedback = (await api<{ router: RouterFeedbackState | null }>('/api/router'))?.router ?? null;
      const router = topo && o.capacityKbps !== undefined ? await readRouterCounters(topo.serverNs, topo.bottleneckDev).catch(() => null) : null;
      const states = players.map((p) => viewers.find((v) => v.id === p?.viewerId) ?? null);
      const streamKbps = states.map((v) => snapshot?.streams.find((x) => x.id === v?.streamId)?.layerKbps?.total ?? null);
      const capacityKbps = o.capacityKbps === undefined ? null : capacityAt(o.capacityKbps, o.capacitySteps, s);
      const tcpBytes = (tcp as TcpFlows | null)?.bytes() ?? null;
      samples.push({ t: s, atMs: snapshot ? Date.parse(snapshot.at) : null, players, api: states, streamKbps, router, routerFeedback, capacityKbps, tcpBytes });
      snapshots.push(snapshot);
      if (o.tcp && s === o.tcp.startS) await startTcp();
      if (s === Math.floor(o.seconds / 2)) {
        cpu.reset();
        halfAt = await Promise.all(pages.map((p) => p.page.evaluate(() => performance.now()).catch(() => Infinity)));
      }
      if (s % 5 === 0 || s === o.seconds) progress(`${s} / ${o.seconds} s`);
      if (stopWhen?.(samples)) {
        progress(`ended at ${s} s: the run has shown what it was run for`);
        break;
      }
    }
    if (o.screenshotDir) await screenshots(o.screenshotDir, pages.map((p) => p.page), browser, `${viewerBase}/dashboard#token=${operatorToken}`, progress);
    const display = await Promise.all(
      pages.map((p, i) =>
        p.page
          .evaluate(() => window.pels?.qualitySamples() ?? [])
          .then((xs) => psnrSummary(xs, halfAt[i]!), () => psnrSummary([], 0)),
      ),
    );
    const tcpRun = tcp as TcpFlows | null;
    const tcpSummary = tcpRun ? { congestionControl: tcpRun.congestionControl, ends: [...tcpRun.ends] } : null;
    const cpuUse = cpu.read();
    const receivers = synthetic ? await (synthetic as SyntheticViewers).report() : null;
    if (receivers) addSyntheticStates(samples, snapshots, receivers);
    const result = summarize(o, routerMode, samples, pages.map((p) => p.pageErrors), cpuUse, agent?.deliveryErrors ?? 0, display, await steps.applied(), tcpSummary, receivers);
    if (upta) result.upta = { threshold: o.upta!, changes: upta.changes, errors: upta.errors };
    const metrics = await fetch(`${server.url}/metrics`, { headers: operator, signal: AbortSignal.timeout(2000) }).then((r) => (r.ok ? r.text() : null), () => null);
    if (metrics !== null) result.server = serverCounters(metrics);
    const ranMs = Date.now() - t0;
    pages.forEach((p, i) => {
      const v = result.viewers[i];
      if (v) v.signalingKbps = Math.round(((p.signaling.bytes * 8) / ranMs) * 10) / 10;
    });
    if (o.timeseriesFile) {
      await mkdir(join(o.timeseriesFile, '..'), { recursive: true });
      await writeFile(o.timeseriesFile, timeseriesCsv(samples));
      result.timeseriesFile = o.timeseriesFile;
    }
    return { result, samples };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await res.release();
  }
}

export interface ViewerResult {
  id: string;
  mode?: FlowModeName;
  /** The rate controller the server ran for this viewer. */
  controller?: RateControllerName;
  rateKbps?: number | null;
  sentKbps?: number | null;
  gamma?: number | null;
  loss?: Record<string, number | null>;
  rttMs?: number | null;
  framesSent?: ViewerState['framesSent'];
  framesSkipped?: number;
  dscp?: ViewerState['dscp'];
  framesDecoded?: PlayerStats['framesDecoded'];
  framesReceived?: PlayerStats['framesReceived'];
  /** Frames the player skipped (a reference missing) or got after their playout slot. */
  framesSkippedByPlayer?: number;
  framesLate?: number;
  /** Y-PSNR of the displayed frames over the second half, dB: mean and 5th percentile of the scored periods, and their share. */
  psnr?: { mean: number | null; p5: number | null; scoredShare: number | null };
  /** Page load to the first decoded frame, ms; null: none. */
  firstFrameMs?: number | null;
  /** The viewer's join (its first session created on the server) to the first decoded frame, ms; null: none, or the join unseen. */
  joinToFirstFrameMs?: number | null;
  /** Join to the first sample whose sent rate is at least 90% of the stream's full rate, ms (1 s resolution, rounded up); null: never. */
  timeToFullRateMs?: number | null;
  /** Frames shown more than 200 ms, over the whole run. */
  freezes?: number;
  checksumMismatches?: number;
  fps?: number | null;
  decodeErrors?: number;
  /**
   * Packets retransmitted by the server and received as retransmissions by the player, over the
   * run, and retransmitted bytes as a share of the bytes sent over the second half (percent).
   */
  rtx?: { sent: number | null; recovered: number | null; overheadPct: number | null };
  /** Key-frame requests the player sent on green. */
  pliSent?: number;
  /**
   * The sound as the player received it: packets received and lost (the receiver's counts over the run),
   * concealed samples over the samples received in the second half, and the player's A/V offset (audio
   * playout minus video display for the same instant, positive when the sound is late), median of its
   * per-second readings over the second half, ms. null: the player had no sound.
   */
  audio?: { packetsReceived: number; packetsLost: number; concealedRatio: number | null; avSyncMs: number | null } | null;
  /**
   * Live latency, from a frame's entry at the server to its display (the player's
   * figures over its last 10 s, sampled each second): the medians of its p50 and
   * p95 over the second half; null: never known.
   */
  latencyMs?: { p50: number | null; p95: number | null } | null;
  /** The controller's reading of the loss over the second half (the viewer state's `congestion`); null: the server gives none. */
  congestion?: CongestionSummary | null;
  /**
   * The server's pacer for this viewer: its rate (mean over the second half, kb/s), and how long a frame waited in it
   * (arrival to its last packet sent): mean over the second half's frames and the longest of the run, ms; null: a server without one.
   */
  pacing?: { kbps: number | null; delayMeanMs: number | null; delayMaxMs: number } | null;
  /**
   * Renditions (0: full size): time in each over the whole run and switches (the server's),
   * and each change the per-second samples saw: second of the run and the rendition it went to;
   * the switches the player saw in the frames it decoded.
   */
  rendition?: { timeMs: number[]; switches: number; changes: { t: number; to: number }[]; playerSwitches?: number };
  /**
   * What the player's signaling socket received over the run, kb/s of WebSocket payload: answers, and the
   * notifications (its stream's PSNR table rows, about twice a second, and its own state each second).
   */
  signalingKbps?: number;
  /** A synthetic viewer (receivers/): no player fields, its receiver's counts instead. */
  synthetic?: true;
  receiver?: SyntheticReceipt;
  errors: string[];
}

/** What one synthetic viewer received over the second half (after repair). */
export interface SyntheticReceipt {
  joinMs: number | null;
  /** Packets lost / expected per color; null: the color carried nothing. */
  loss: Record<Color, number | null>;
  packets: Record<Color, number>;
  /** Base frames received complete / sent (by TL0PICIDX); all frames complete / seen. */
  greenFrames: FrameDelivery;
  allFrames: FrameDelivery;
  nacksSent: Record<Color, number>;
}

function syntheticReceipt(r: ReceiverResult): SyntheticReceipt {
  const perColor = <T>(f: (c: Color) => T) => Object.fromEntries(COLORS.map((c) => [c, f(c)])) as Record<Color, T>;
  return {
    joinMs: round(r.joinMs, 0),
    loss: perColor((c) => {
      const x = r.colors[c];
      return x && x.expected > 0 ? round(x.lost / x.expected, 4) : null;
    }),
    packets: perColor((c) => r.colors[c]?.packets ?? 0),
    greenFrames: r.green,
    allFrames: r.all,
    nacksSent: perColor((c) => r.nacksSent[c] ?? 0),
  };
}

export interface TestbedResult {
  config: Record<string, unknown>;
  viewers: ViewerResult[];
  /** Over the viewers' MKC rates (second half). */
  jain: number | null;
  router?: {
    /** Which router ran: PELS (a queue per color) or one FIFO. */
    mode: RouterMode;
    capacityKbps: number;
    /** The capacity steps: when each was asked for and when the router had it (s into the run; null: it failed, see error). */
    capacitySteps: AppliedStep[];
    feedbackDeliveryErrors: number;
    classes: Record<string, { sent: number; dropped: number }>;
    /** The same counted over the second half. */
    secondHalf: Record<string, { sent: number; dropped: number }>;
  };
  /** With synthetic viewers: what they received over the second half, together (per viewer under each one's `receiver`). */
  synthetic?: ReceiversSummary;
  /** With TCP flows: the flows, and Jain's index over every flow's throughput (video goodput and TCP, second half). */
  tcp?: TcpFlowResult[];
  tcpCongestionControl?: string;
  jainAllFlows?: number | null;
  /** With --upta: when the router started or stopped dropping each video flow (ms from the agent's start). */
  upta?: { threshold: number; changes: UptaChange[]; errors: number };
  cpuPercentOfOneCore: Record<string, Record<string, number>>;
  /** The server's own counters over the run (its /metrics at the end): packets its channel writers dropped, keyframes its viewers' requests forced. */
  server?: ServerCounters;
  timeseriesFile?: string;
}

function pacingSummary(a: ViewerState | null | undefined, b: ViewerState, states: ViewerState[]): ViewerResult['pacing'] {
  if (!b.pacing) return null;
  const frames = b.pacing.delay.frames - (a?.pacing?.delay.frames ?? 0);
  const totalMs = b.pacing.delay.totalMs - (a?.pacing?.delay.totalMs ?? 0);
  return {
    kbps: round(mean(states.map((x) => x.pacing?.kbps ?? null).filter((x): x is number => x !== null)), 0),
    delayMeanMs: frames > 0 ? round(totalMs / frames, 2) : null,
    delayMaxMs: Math.round(b.pacing.delay.maxMs),
  };
}

function summarize(
  o: TestbedOptions,
  routerMode: RouterMode,
  samples: Sample[],
  pageErrors: string[][],
  cpu: TestbedResult['cpuPercentOfOneCore'],
  deliveryErrors: number,
  display: ReturnType<typeof psnrSummary>[],
  capacitySteps: AppliedStep[],
  tcp: { congestionControl: string; ends: (TcpFlowEnd | null)[] } | null,
  receivers: ReceiversReport | null,
): TestbedResult {
  const half = samples.slice(Math.max(0, Math.floor(samples.length / 2) - 1));
  const first = half[0]!;
  const last = samples[samples.length - 1]!;
  const elapsed = Math.max(1, last.t - first.t);
  /** What the server says of viewer i (the i-th of the samples' states) over the second half. */
  const serverView = (i: number): Partial<ViewerResult> => {
    const a = first.api[i];
    const b = last.api[i];
    const states = half.map((s) => s.api[i]).filter((x): x is ViewerState => !!x);
    return b
      ? {
          mode: b.mode,
          controller: b.controller,
          rateKbps: round(mean(states.map((x) => x.rateKbps)), 1),
          sentKbps: round(mean(states.map((x) => x.sentKbps)), 1),
          gamma: round(mean(states.map((x) => x.gamma)), 3),
          loss: Object.fromEntries(COLORS.map((c) => [c, round(a ? intervalLoss(a.perColor[c], b.perColor[c]) : null, 4)])),
          rttMs: b.rttMs === null ? null : round(b.rttMs, 2),
          framesSent: b.framesSent,
          framesSkipped: b.framesSkipped,
          dscp: b.dscp,
          rendition: { timeMs: b.rendition.timeMs.map((ms) => Math.round(ms)), switches: b.rendition.switches, changes: renditionChanges(samples, i) },
          congestion: congestionSummary(states.map(congestionOf)),
          pacing: pacingSummary(a, b, states),
        }
      : {};
  };
  const viewers: ViewerResult[] = pageErrors.map((errs, i) => {
    const id = `v${i + 1}`;
    const end = last.players[i];
    const errors = [...(end ? [] : ['player did not start']), ...(end?.stats.lastError ? [end.stats.lastError] : []), ...errs];
    if (!end) return { id, errors };
    const a = first.api[i];
    const b = last.api[i];
    const server = serverView(i);
    return {
      id,
      ...server,
      framesDecoded: end.stats.framesDecoded,
      framesReceived: end.stats.framesReceived,
      framesSkippedByPlayer: end.stats.framesSkipped,
      framesLate: end.stats.framesLate,
      psnr: display[i] ?? { mean: null, p5: null, scoredShare: null },
      firstFrameMs: round(end.firstFrameMs ?? null, 0),
      joinToFirstFrameMs: joinToFirstFrameMs(samples, i, end.firstFrameAtMs),
      timeToFullRateMs: fullRateAfterJoin(samples, i),
      freezes: end.stats.freezes,
      checksumMismatches: end.stats.checksumMismatches,
      fps: round((end.stats.framesDecoded.total - (first.players[i]?.stats.framesDecoded.total ?? 0)) / elapsed, 1),
      decodeErrors: end.stats.decodeErrors,
      rtx: { sent: b?.rtx.packetsSent ?? null, recovered: end.stats.packetsRecovered, overheadPct: rtxOverheadPct(a, b, server.sentKbps, elapsed) },
      pliSent: end.stats.pliSent,
      audio: audioSummary(half.map((x) => x.players[i]?.stats)),
      latencyMs: latencySummary(half.map((x) => x.players[i]?.stats)),
      ...(server.rendition ? { rendition: { ...server.rendition, playerSwitches: end.stats.renditionSwitches } } : {}),
      errors,
    };
  });
  receivers?.receivers.forEach((r, k) => {
    const i = pageErrors.length + k;
    const server = serverView(i);
    viewers.push({
      id: `s${k + 1}`,
      synthetic: true,
      ...server,
      timeToFullRateMs: fullRateAfterJoin(samples, i),
      rtx: { sent: last.api[i]?.rtx.packetsSent ?? null, recovered: null, overheadPct: rtxOverheadPct(first.api[i], last.api[i], server.sentKbps, elapsed) },
      receiver: syntheticReceipt(r),
      errors: [...(r.error ? [r.error] : []), ...(r.viewerId ? [] : ['the server never sent this viewer its state'])],
    });
  });
  const rates = viewers.map((v) => v.rateKbps).filter((r): r is number => typeof r === 'number');
  const result: TestbedResult = {
    // The router that ran: none without a bottleneck.
    config: { ...o, router: o.capacityKbps === undefined ? null : routerMode, timeseriesFile: undefined, serverEnv: o.serverEnv },
    viewers,
    jain: round(jainIndex(rates), 4),
    cpuPercentOfOneCore: cpu,
  };
  if (receivers) result.synthetic = summarizeReceivers(receivers);
  if (o.tcp && tcp) {
    const flows = tcpFlowResults(samples, tcp.ends, samples.length - half.length);
    const video = viewers.map((v, i) => videoGoodputKbps(v.sentKbps, first.api[i], last.api[i]));
    result.tcp = flows;
    result.tcpCongestionControl = tcp.congestionControl;
    result.jainAllFlows = round(jainIndex([...video.map((v) => v ?? 0), ...flows.map((f) => f.secondHalfKbps ?? 0)]), 4);
  }
  if (o.capacityKbps !== undefined && last.router) {
    const classes: Record<string, { sent: number; dropped: number }> = {};
    const secondHalf: Record<string, { sent: number; dropped: number }> = {};
    for (const [name, q] of Object.entries(last.router)) {
      classes[name] = { sent: q.packets, dropped: q.dropped };
      const before = first.router?.[name as keyof RouterCounters];
      if (before) secondHalf[name] = { sent: q.packets - before.packets, dropped: q.dropped - before.dropped };
    }
    result.router = { mode: routerMode, capacityKbps: o.capacityKbps, capacitySteps, feedbackDeliveryErrors: deliveryErrors, classes, secondHalf };
  }
  return result;
}

export interface AppliedStep extends CapacityStep {
  appliedAtS: number | null;
  error?: string;
}

/**
 * Moves the bottleneck to each step's capacity at its time (the router's
 * classes change in place; the router agent measures against the new rate).
 */
function startCapacitySteps(o: TestbedOptions, routerMode: RouterMode, topo: Topology | null, agent: RouterAgent | null, t0: number, progress: Progress): { applied(): Promise<AppliedStep[]>; cancel(): void } {
  const timers: NodeJS.Timeout[] = [];
  const done: Promise<AppliedStep>[] = [];
  if (!topo || o.capacityKbps === undefined) return { applied: async () => [], cancel: () => {} };
  for (const step of o.capacitySteps) {
    done.push(
      new Promise((resolve) => {
        timers.push(
          setTimeout(() => {
            changeCapacity(topo.serverNs, topo.bottleneckDev, {
              capacityKbps: step.kbps,
              internetShare: o.internetShare,
              mode: routerMode,
              // A queue sized by default holds about 500 ms of the link: it keeps doing so at the new capacity.
              ...(o.queuePackets === undefined ? { queuePackets: defaultQueuePackets(step.kbps) } : {}),
            }).then(
              () => {
                agent?.setLinkKbps(step.kbps);
                progress(`router: ${step.kbps} kb/s from ${step.atS} s`);
                resolve({ ...step, appliedAtS: round((Date.now() - t0) / 1000, 2) });
              },
              (err: unknown) => resolve({ ...step, appliedAtS: null, error: err instanceof Error ? err.message : String(err) }),
            );
          }, Math.max(0, t0 + step.atS * 1000 - Date.now())),
        );
      }),
    );
  }
  return { applied: () => Promise.all(done), cancel: () => timers.forEach(clearTimeout) };
}

/**
 * Appends each synthetic viewer's server state (and its stream's rate) to
 * every sample, after the Chromium viewers', in the receivers' order; a
 * receiver that never learnt its viewer id gets nulls.
 */
function addSyntheticStates(samples: Sample[], snapshots: (OperatorSnapshot | null)[], receivers: ReceiversReport): void {
  samples.forEach((s, k) => {
    const snap = snapshots[k];
    for (const r of receivers.receivers) {
      const v = (r.viewerId && snap?.viewers.find((x) => x.id === r.viewerId)) || null;
      s.api.push(v);
      s.streamKbps.push(snap?.streams.find((x) => x.id === v?.streamId)?.layerKbps?.total ?? null);
    }
  });
}

/** Each viewer's page as it is, and the dashboard (opened in the viewers' browser, so it reaches the server the same way). */
async function screenshots(dir: string, pages: Page[], browser: Browser | null, dashboardUrl: string, progress: Progress): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Promise.all(pages.map((page, i) => page.screenshot({ path: join(dir, `viewer-${i + 1}.png`), fullPage: true })));
  if (browser) {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(dashboardUrl);
    // The dashboard's first snapshot over its WebSocket.
    await page.waitForTimeout(3000);
    await page.screenshot({ path: join(dir, 'dashboard.png') });
    await page.context().close();
  }
  progress(`screenshots in ${dir}`);
}

/** The samples where viewer i's rendition differs from the sample before. */
function renditionChanges(samples: Sample[], i: number): { t: number; to: number }[] {
  const out: { t: number; to: number }[] = [];
  let current = 0;
  for (const s of samples) {
    const r = s.api[i]?.rendition.current;
    if (r === undefined || r === current) continue;
    out.push({ t: s.t, to: r });
    current = r;
  }
  return out;
}

/** Retransmitted bytes between two states as a percentage of the bytes sent meanwhile (mean sent rate over `seconds`). */
function rtxOverheadPct(a: ViewerState | null | undefined, b: ViewerState | null | undefined, sentKbps: number | null | undefined, seconds: number): number | null {
  if (!a || !b || !sentKbps) return null;
  return round((100 * (b.rtx.bytesSent - a.rtx.bytesSent) * 8) / (sentKbps * 1000 * seconds), 2);
}

/**
 * From the viewer's join (the server's connectedAt) to the first sample at 90%
 * of its stream's full rate: the median of the stream's measured rate over the
 * run, since the testbed starts the stream with the server and its first
 * seconds' measurements are not yet steady.
 */
function fullRateAfterJoin(samples: Sample[], i: number): number | null {
  const joined = joinedAtMs(samples, i);
  const fullKbps = median(samples.map((s) => s.streamKbps[i]).filter((x): x is number => typeof x === 'number'));
  if (joined === null || fullKbps === null) return null;
  const points = samples.flatMap((s) => {
    const v = s.api[i];
    return v && s.atMs !== null ? [{ atMs: s.atMs, sentKbps: v.sentKbps }] : [];
  });
  return timeToFullRateMs(points, joined, fullKbps);
}

/** When viewer i joined: its first session's creation on the server (connectedAt), as the samples saw it; null: never seen. */
function joinedAtMs(samples: Sample[], i: number): number | null {
  const joined = samples.map((s) => s.api[i]).find((v) => v)?.connectedAt;
  return joined ? Date.parse(joined) : null;
}

/**
 * Start-up as a viewer sees it once the page runs: from its join (the server
 * creating its session on the player's join request) to the player's first
 * decoded frame, ms. Unlike firstFrameMs it leaves out the page's load, whose
 * script crosses the same bottleneck. Server and browser read this machine's
 * one clock. Null without a frame or a join seen, or when the frame came
 * first (from a session before the first sample).
 */
function joinToFirstFrameMs(samples: Sample[], i: number, firstFrameAtMs: number | undefined): number | null {
  const joined = joinedAtMs(samples, i);
  if (joined === null || firstFrameAtMs === undefined || firstFrameAtMs < joined) return null;
  return Math.round(firstFrameAtMs - joined);
}

/** One row per second: per viewer rate, gamma, p, recent loss per color, frames decoded, colors subscribed, rendition, round trip; the router's counters; each TCP flow's bytes. */
export function timeseriesCsv(samples: Sample[]): string {
  const n = Math.max(0, ...samples.map((s) => s.api.length));
  const queues = ['green', 'yellow', 'red', 'video', 'internet', 'upta', 'random'] as const;
  const head = ['t', 'routerP'];
  for (let i = 1; i <= n; i++) {
    head.push(...['rateKbps', 'sentKbps', 'gamma', 'lossP', 'lossGreen', 'lossYellow', 'lossRed', 'framesDecoded', 'colors', 'rendition', 'fullBaseKbps', 'rttMs'].map((k) => `v${i}.${k}`));
  }
  head.push(...queues.flatMap((q) => [`${q}.sent`, `${q}.dropped`]), 'capacityKbps');
  const tcpFlows = Math.max(0, ...samples.map((s) => s.tcpBytes?.length ?? 0));
  for (let i = 1; i <= tcpFlows; i++) head.push(`t${i}.bytes`);
  const rows = [head.join(',')];
  for (const s of samples) {
    const row: (string | number)[] = [s.t, s.routerFeedback?.p ?? ''];
    for (let i = 0; i < n; i++) {
      const v = s.api[i];
      const p = s.players[i];
      row.push(v?.rateKbps ?? '', v?.sentKbps ?? '', v?.gamma ?? '', v?.lossP ?? '');
      row.push(...COLORS.map((c) => v?.perColor[c].recentLoss ?? ''));
      row.push(p?.stats.framesDecoded.total ?? '');
      row.push(v?.colors.length ?? '');
      row.push(v?.rendition.current ?? '');
      // The full size's base rate as measured: the rendition choice's up and down thresholds are multiples of its highest and lowest over a window.
      row.push(v?.rendition.baseKbps[0] ?? '');
      row.push(v?.rttMs ?? '');
    }
    for (const q of queues) row.push(s.router?.[q]?.packets ?? '', s.router?.[q]?.dropped ?? '');
    row.push(s.capacityKbps ?? '');
    for (let i = 0; i < tcpFlows; i++) row.push(s.tcpBytes?.[i] ?? '');
    rows.push(row.map((x) => (typeof x === 'number' ? round(x, 4) : x)).join(','));
  }
  return rows.join('\n') + '\n';
}

/** The sound of one player over the second half (its stats each second), for the JSON. */
export function latencySummary(stats: (PlayerStats | undefined)[]): ViewerResult['latencyMs'] {
  const known = stats.flatMap((x) => (x?.latencyMs ? [x.latencyMs] : []));
  if (!known.length) return null;
  return { p50: round(median(known.map((l) => l.p50)), 0), p95: round(median(known.map((l) => l.p95)), 0) };
}

export function audioSummary(stats: (PlayerStats | undefined)[]): ViewerResult['audio'] {
  const withAudio = stats.filter((x): x is PlayerStats & { audio: NonNullable<PlayerStats['audio']> } => !!x?.audio);
  const a = withAudio[0]?.audio;
  const b = withAudio.at(-1)?.audio;
  if (!a || !b) return null;
  const samples = b.totalSamplesReceived - a.totalSamplesReceived;
  const offsets = withAudio.flatMap((x) => (typeof x.avSyncMs === 'number' ? [x.avSyncMs] : [])).sort((p, q) => p - q);
  const mid = offsets.length >> 1;
  const median = offsets.length === 0 ? null : offsets.length % 2 ? offsets[mid]! : (offsets[mid - 1]! + offsets[mid]!) / 2;
  return {
    packetsReceived: b.packetsReceived,
    packetsLost: b.packetsLost,
    concealedRatio: samples > 0 ? round((b.concealedSamples - a.concealedSamples) / samples, 4) : null,
    avSyncMs: round(median, 1),
  };
}
