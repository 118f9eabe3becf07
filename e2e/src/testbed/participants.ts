/**
 * Who takes part in a testbed run: the server (in the server's namespace when
 * there is one), the Chromium viewers and the synthetic receivers (in the
 * viewers'), and the bulk TCP flows across the bottleneck.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { LanTopology } from '../net/lanTopology';
import type { Topology } from '../net/topology';
import { freeRtcPort, startServer, type RunningServer } from '../serverProcess';
import { createLiveStream, startLivePublish } from '../soak/livePublish';
import { publishWhip } from '../whipPublisher';
import { TcpFlows, type TcpOptions } from '../tcp/tcpFlows';
import { launchBrowser } from './browser';
import { startCluster, type Cluster } from './cluster';
import type { Resources } from './resources';
import { startSyntheticViewers, type SyntheticViewers } from './syntheticViewers';
import type { IngestProtocol, Progress, TestbedOptions } from './testbed';

/**
 * SRT's receive latency over the testbed's links (both ends: the larger holds): what SRT holds each packet for
 * retransmissions, to be set from the link's round trip (4 times it, SRT's guide says); the namespaces' is under
 * a millisecond, and SRT's default of 120 ms would be latency for nothing.
 */
const SRT_LATENCY_MS = 20;

/** Synthetic viewers joining a second: one join takes a few hundred ms, mostly DSCP marking and ICE. */
const SYNTHETIC_RAMP_PER_SECOND = 10;

export interface TestbedServer {
  server: RunningServer;
  /** The server's base URL as the viewers reach it (across the bottleneck when there is one). */
  viewerBase: string;
  operatorToken: string;
  routerToken: string;
  /** Headers for the operator API. */
  operator: { authorization: string };
  /** With --edges: the cluster (`server` is its origin, `viewerBase` its front). */
  cluster?: Cluster;
}

/** The server, with this run's own operator and router tokens (the viewer list is operator API, router feedback the router agent's). */
export async function startTestbedServer(o: TestbedOptions, topo: Topology | null, res: Resources, progress: Progress): Promise<TestbedServer> {
  const operatorToken = randomBytes(24).toString('base64url');
  const routerToken = randomBytes(24).toString('base64url');
  if (o.edges > 0) return startTestbedCluster(o, topo as LanTopology, operatorToken, routerToken, res, progress);
  const ingestPort = await freeRtcPort();
  const server = await startServer({
    env: {
      OPERATOR_TOKEN: operatorToken,
      ROUTER_TOKEN: routerToken,
      FEEDBACK: o.feedback,
      ...(o.source && !o.ingest ? { SOURCE: o.source } : {}),
      // WHIP answers on the HTTP port, its media on the server's RTC port.
      ...(o.ingest ? { [o.ingest.toUpperCase()]: 'on', ...(o.ingest === 'whip' ? {} : { [`${o.ingest.toUpperCase()}_PORT`]: String(ingestPort) }) } : {}),
      ...(o.ingest === 'srt' ? { SRT_LATENCY_MS: String(SRT_LATENCY_MS) } : {}),
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
  if (o.ingest) await startPublisher(o, o.ingest, { serverUrl: server.url, viewerBase, topo, operatorToken, host: topo ? topo.serverControlIp : '127.0.0.1', port: ingestPort }, res, progress);
  return { server, viewerBase, operatorToken, routerToken, operator: { authorization: `Bearer ${operatorToken}` } };
}

/** --edges: Redis, the origin (the run's source) and the edges on the LAN's hosts; the viewers open the front. */
async function startTestbedCluster(o: TestbedOptions, topo: LanTopology, operatorToken: string, routerToken: string, res: Resources, progress: Progress): Promise<TestbedServer> {
  const cluster = await startCluster(
    {
      edges: o.edges,
      hosts: topo.hosts.map((h) => ({ netns: h.ns, ip: h.ip })),
      operatorToken,
      env: { ROUTER_TOKEN: routerToken, FEEDBACK: o.feedback, ...o.serverEnv },
      originEnv: o.source ? { SOURCE: o.source } : {},
      viewers: o.viewers + o.synthetic,
      log: (line) => progress(line),
    },
    res,
  );
  return { server: cluster.origin, viewerBase: cluster.front, operatorToken, routerToken, operator: { authorization: `Bearer ${operatorToken}` }, cluster };
}

/** The live stream the viewers watch with --ingest. */
const LIVE_STREAM_ID = 'live';

/**
 * --ingest: the stream `live`, its publisher started (FFmpeg pushing the run's source in real time, or over WHIP
 * Chromium, in the viewers' namespace when there is one, as the viewers reach the server; each stamping its
 * frames' capture time) and live; the server's own stream `default` removed, so that its encoding does not load
 * the machine the latency is measured on.
 */
async function startPublisher(
  o: TestbedOptions,
  protocol: IngestProtocol,
  at: { serverUrl: string; viewerBase: string; topo: Topology | null; operatorToken: string; host: string; port: number },
  res: Resources,
  progress: Progress,
): Promise<void> {
  const { serverUrl, operatorToken } = at;
  const headers = { authorization: `Bearer ${operatorToken}` };
  const removed = await fetch(`${serverUrl}/api/streams/default`, { method: 'DELETE', headers, signal: AbortSignal.timeout(15_000) });
  if (!removed.ok && removed.status !== 404) throw new Error(`removing the stream default answered ${removed.status}: ${await removed.text()}`);
  if (protocol === 'whip') {
    const key = await createLiveStream(serverUrl, operatorToken, LIVE_STREAM_ID);
    const page = await (await (await launchBrowser(at.topo, at.viewerBase, res)).newContext()).newPage();
    await page.goto(`${at.viewerBase}/api/health`);
    const answer = await publishWhip(page, `${at.viewerBase}/whip/${LIVE_STREAM_ID}`, key);
    if (answer.status !== 201) throw new Error(`the WHIP publish was answered ${answer.status}: ${answer.body}`);
  } else {
    const live = await startLivePublish({ serverUrl, operatorToken, streamId: LIVE_STREAM_ID, host: at.host, port: at.port, protocol, srtLatencyMs: SRT_LATENCY_MS, publish: { ...(o.source ? { source: o.source } : {}), stampWallClock: true } });
    res.add(() => live.stop());
  }
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = await fetch(`${serverUrl}/api/streams`, { signal: AbortSignal.timeout(2000) }).then((r) => r.json() as Promise<{ streams: { id: string; state: string }[] }>, () => null);
    const state = list?.streams.find((x) => x.id === LIVE_STREAM_ID)?.state;
    if (state === 'running') break;
    if (Date.now() > deadline) throw new Error(`the ${protocol} publisher's stream is not live after 20 s (state ${state ?? 'unknown'})`);
    await new Promise((r) => setTimeout(r, 250));
  }
  progress(`${protocol} publisher live on stream ${LIVE_STREAM_ID}`);
}

/** One Chromium viewer's page, the errors it threw and the signaling bytes it received. */
export interface ViewerPage {
  page: Page;
  pageErrors: string[];
  signaling: { bytes: number };
}

/** The Chromium viewers, each in a context of its own, with the flow mode and its rate controller (cycled over `o.controllers`) in the URL. */
export async function openViewers(o: TestbedOptions, topo: Topology | null, viewerBase: string, res: Resources, cluster?: Cluster): Promise<{ browser: Browser | null; pages: ViewerPage[] }> {
  // A cluster's front sends each page on to an edge: the pages' origins are the edges'.
  const origins = cluster ? [viewerBase, ...cluster.nodes.map((n) => `http://${n.address}`)].join(',') : viewerBase;
  const browser = o.viewers > 0 ? await launchBrowser(topo, origins, res) : null;
  const pages: ViewerPage[] = [];
  for (let i = 0; i < o.viewers; i++) {
    const page = await (await browser!.newContext()).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const signaling = { bytes: 0 };
    page.on('websocket', (ws) => ws.on('framereceived', (f) => (signaling.bytes += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length)));
    const cc = o.controllers.length > 0 ? `&cc=${o.controllers[i % o.controllers.length]}` : '';
    const loaded = await page.goto(`${viewerBase}/?mode=${o.mode}${cc}${o.ingest ? `&stream=${LIVE_STREAM_ID}` : ''}`);
    // Say why rather than run a viewer without a player (e.g. the player not built: 503).
    if (loaded && !loaded.ok()) throw new Error(`the player's page answered ${loaded.status()}: ${(await loaded.text()).trim()}`);
    pages.push({ page, pageErrors, signaling });
  }
  return { browser, pages };
}

/** The synthetic viewers, once all have joined or failed; null: none asked for. They report over the second half of the run, as the other averages. */
export async function joinSyntheticViewers(o: TestbedOptions, topo: Topology | null, viewerBase: string, res: Resources, progress: Progress): Promise<SyntheticViewers | null> {
  if (o.synthetic <= 0) return null;
  const synthetic = startSyntheticViewers({ count: o.synthetic, url: viewerBase, place: o.edges > 0, mode: o.mode, netns: topo?.clientNs, warmupSeconds: Math.floor(o.seconds / 2), rampPerSecond: SYNTHETIC_RAMP_PER_SECOND, log: progress });
  res.add(() => synthetic.stop());
  const { failed } = await synthetic.joined;
  if (failed > 0) progress(`${failed} synthetic viewer(s) failed to join`);
  return synthetic;
}

/** The run's bulk TCP flows (namespaces required: `createNetwork` refuses TCP flows without them). */
export async function startTcpFlows(o: TcpOptions, topo: Topology, res: Resources, progress: Progress): Promise<TcpFlows> {
  const tcp = await TcpFlows.start(topo, o);
  res.add(() => tcp.stop());
  progress(`${o.flows} TCP flow(s) started (${tcp.congestionControl}, ${o.queue} queue)`);
  return tcp;
}

/** Each viewer's page as it is, and the dashboard (opened in the viewers' browser, so it reaches the server the same way). */
export async function screenshots(dir: string, pages: Page[], browser: Browser | null, dashboardUrl: string, progress: Progress): Promise<void> {
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
