/**
 * The testbed: the server, an emulated PELS bottleneck and N headless Chromium
 * viewers, for end-to-end experiments. Used by `npm run testbed`, the
 * end-to-end tests and the benchmarks. A run puts up the topology (network.ts),
 * starts the participants (participants.ts), samples them each second
 * (sampler.ts) and summarizes the samples (summary.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { RateControllerName } from '@pels/shared/rate/names';
import { readBottleneckCounters, BOTTLENECK_DEFAULTS, bottleneckKindOf, type BottleneckKind } from '../net/pelsBottleneck';
import { readUdpCounters, udpCountersSince } from '../net/udpCounters';
import { startCapture, type Capture, type UdpPacket } from '../pcap';
import { streamLosses } from './rtpLoss';
import type { TcpFlows, TcpOptions } from '../tcp/tcpFlows';
import type { LiveProtocol } from '../livePublisher';

/** What the testbed publishes over with --ingest: FFmpeg's protocols, or WHIP from Chromium. */
export type IngestProtocol = LiveProtocol | 'whip';
import { capacityAt, type CapacityStep } from './capacitySteps';
import { createNetwork, startCapacitySteps, startRouterAgent, startUptaAgent } from './network';
import { joinSyntheticViewers, openViewers, screenshots, startTcpFlows, startTestbedServer } from './participants';
import { TreeCpu } from './processCpu';
import { Resources } from './resources';
import { addSyntheticStates, displaySummaries, pageClocks, readServerCounters, sampleEverySecond, type Sample } from './sampler';
import { summarize, timeseriesCsv, type TestbedResult } from './summary';
import { nodeResults, rejoinResult } from './clusterSummary';
import type { NodeRecord } from '../../../server/src/cluster/clusterRegistry';
import type { ClusterNode } from './cluster';

export type { Sample } from './sampler';
export type { TestbedResult, ViewerResult } from './summary';

export interface TestbedOptions {
  /** Chromium viewers. */
  viewers: number;
  /** Synthetic viewers (receivers/: real WebRTC, no decoding) beside them, in the viewers' namespace. */
  synthetic: number;
  /** 0: one server; N: Redis, an origin and N edges, each a host on a LAN (cluster.ts), the viewers placed by the origin. */
  edges: number;
  /** Seconds into the run the edge with the most viewers is killed (SIGKILL); undefined: none. */
  killEdgeS?: number;
  seconds: number;
  mode: FlowModeName;
  /** The bottleneck's queues; undefined: the flow mode's own (bottleneckKindOf). The flows keep their mode's sender and marking either way. */
  router?: BottleneckKind;
  feedback: 'rtcp' | 'router';
  /** Bottleneck rate; undefined: no shaping. */
  capacityKbps: number | undefined;
  lossPct: number;
  /** Router sampling interval T for eq. 11. */
  routerIntervalMs: number;
  /** Yellow queue limit (or the FIFO router's), packets; undefined: about 500 ms of the link. */
  queuePackets: number | undefined;
  /** Green queue limit, bytes; undefined: about 1 s of the link. */
  greenQueueBytes: number | undefined;
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
  /** A pcap file for what the viewers' host receives over UDP (the viewers' namespace; needs a bottleneck). */
  captureFile?: string;
  /**
   * The viewers watch a live stream that a publisher sends to over this protocol, stamping each frame's capture
   * time: FFmpeg (as OBS) with `source` (or a test picture and tone) over RTMP or SRT; over WHIP Chromium
   * (H.264 + Opus, a moving picture and a tone, the capture time in abs-capture-time); undefined: the server
   * reads `source` itself.
   */
  ingest?: IngestProtocol;
}

export const TESTBED_DEFAULTS: TestbedOptions = {
  viewers: 1,
  synthetic: 0,
  edges: 0,
  seconds: 30,
  mode: 'pels',
  feedback: 'rtcp',
  capacityKbps: undefined,
  lossPct: 0,
  routerIntervalMs: 100,
  queuePackets: undefined,
  greenQueueBytes: undefined,
  redQueuePackets: BOTTLENECK_DEFAULTS.redQueuePackets,
  internetShare: BOTTLENECK_DEFAULTS.internetShare,
  source: undefined,
  timeseriesFile: undefined,
  controllers: [],
  capacitySteps: [],
};

export type Progress = (msg: string) => void;

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
  const bottleneckKind = o.router ?? bottleneckKindOf(o.mode);
  try {
    const topo = await createNetwork(o, bottleneckKind, res, progress);
    const { server, viewerBase, operatorToken, routerToken, operator, cluster } = await startTestbedServer(o, topo, res, progress);
    const agent = await startRouterAgent(o, bottleneckKind, topo, server.url, routerToken, res);
    const upta = await startUptaAgent(o, topo, res, progress);
    const { browser, pages } = await openViewers(o, topo, viewerBase, res, cluster);
    const synthetic = await joinSyntheticViewers(o, topo, viewerBase, res, progress);
    progress(`${o.viewers} viewer(s)${o.synthetic > 0 ? ` and ${o.synthetic} synthetic` : ''} started; running ${o.seconds} s`);

    // A cluster's nodes each a group of their own (the browser's, this process's tree, last: it holds them all).
    const cpu = new TreeCpu(cluster ? { ...Object.fromEntries(cluster.nodes.map((n) => [n.id, n.server.pid])), redis: cluster.redis.proc.pid!, browser: process.pid } : { server: server.pid, browser: process.pid });
    /** Each node's last record in the registry; the edge killed. */
    const lastSeen = new Map<string, NodeRecord>();
    let killed: ClusterNode | undefined;
    let tcp: TcpFlows | null = null;
    if (o.tcp && o.tcp.startS === 0) tcp = await startTcpFlows(o.tcp, topo!, res, progress);
    /** Each page's clock at the start of the second half, for its display samples. */
    let halfAt: number[] = pages.map(() => 0);
    const udpAtStart = topo ? await readUdpCounters(topo.clientNs).catch(() => null) : null;
    const capture: Capture | null = topo && o.captureFile ? await startCapture({ iface: 'any', file: o.captureFile, filter: 'udp', netns: topo.clientNs }) : null;
    let captured: UdpPacket[] | null = null;
    // A run that fails still stops tcpdump.
    if (capture) res.add(async () => void (captured ?? (await capture.stop().catch(() => []))));
    const t0 = Date.now();
    const t0Perf = performance.now();
    for (const p of pages) p.signaling.bytes = 0;
    const steps = startCapacitySteps(o, bottleneckKind, topo, agent, t0, progress);
    res.add(async () => steps.cancel());
    const src = {
      pages: pages.map((p) => p.page),
      serverUrl: server.url,
      operator,
      routerCounters: async () => (topo && o.capacityKbps !== undefined ? readBottleneckCounters(topo.serverNs, topo.bottleneckDev).catch(() => null) : null),
      capacityAt: (s: number) => (o.capacityKbps === undefined ? null : capacityAt(o.capacityKbps, o.capacitySteps, s)),
      tcpBytes: () => tcp?.bytes() ?? null,
      ...(cluster ? { viewerNodeUrls: () => cluster.nodes.filter((n) => n.role === 'edge' && n.server.running()).map((n) => n.server.url) } : {}),
    };
    const afterSample = async (s: number): Promise<void> => {
      if (cluster) for (const r of (await cluster.records()) ?? []) lastSeen.set(r.id, r);
      if (cluster && s === o.killEdgeS) killed = await cluster.killEdge();
      if (o.tcp && s === o.tcp.startS) tcp = await startTcpFlows(o.tcp, topo!, res, progress);
      if (s === Math.floor(o.seconds / 2)) {
        cpu.reset();
        halfAt = await pageClocks(src.pages);
      }
    };
    const { samples, snapshots } = await sampleEverySecond(src, o.seconds, t0, afterSample, progress, stopWhen);
    const udpAtEnd = topo ? await readUdpCounters(topo.clientNs).catch(() => null) : null;
    if (capture) captured = await capture.stop();
    if (o.screenshotDir) await screenshots(o.screenshotDir, src.pages, browser, `${viewerBase}/dashboard#token=${operatorToken}`, progress);
    const display = await displaySummaries(src.pages, halfAt);
    const tcpRun = tcp as TcpFlows | null;
    const tcpSummary = tcpRun ? { congestionControl: tcpRun.congestionControl, ends: [...tcpRun.ends] } : null;
    const cpuUse = cpu.read();
    const receivers = synthetic ? await synthetic.report() : null;
    if (receivers) addSyntheticStates(samples, snapshots, receivers);
    const result = summarize(o, bottleneckKind, samples, pages.map((p) => p.pageErrors), cpuUse, agent?.deliveryErrors ?? 0, display, await steps.applied(), tcpSummary, receivers);
    if (udpAtStart && udpAtEnd) result.clientUdp = udpCountersSince(udpAtStart, udpAtEnd);
    if (captured && o.captureFile) result.capture = { file: o.captureFile, streams: streamLosses(captured) };
    if (upta) result.upta = { threshold: o.upta!, changes: upta.changesFrom(t0Perf), errors: upta.errors };
    if (cluster) result.nodes = nodeResults(cluster.nodes, lastSeen, cpuUse, t0);
    if (receivers && o.killEdgeS !== undefined) result.rejoin = rejoinResult(receivers, killed?.id);
    const counters = await readServerCounters(src);
    if (counters !== null) result.server = counters;
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
