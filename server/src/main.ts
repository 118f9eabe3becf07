import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_WS_PATH } from '@pels/shared/protocol/dashboard';
import { loadConfig, ConfigError, DEFAULT_SOURCE, DEMO_DIR } from './config';
import { demoClipWithSound } from './ingest/demoClip';
import { RequestError } from './errors';
import { BottleneckFeedbackHub } from './feedback/bottleneckFeedbackHub';
import { apiRoutes } from './http/apiRoutes';
import { clientAddress } from './http/clientAddress';
import { httpHandler, REQUEST_TIMEOUTS, routeUpgrades, type UpgradeHandler } from './http/httpServer';
import { playerPage } from './http/playerPage';
import { keepCertificateCurrent, readTlsPair, TlsFilesError } from './http/tlsCertificate';
import { resolveSource } from './ingest/mediaFiles';
import { SourceError } from './ingest/sourcePolicy';
import { redactCredentials } from './ingest/sourceRedaction';
import { AddressRateLimit } from './limits/addressRateLimit';
import { Limits } from './limits/limits';
import type { SocketKind } from './limits/socketsPerAddress';
import { createLogger } from './log';
import { MediasoupWorkers } from './metrics/mediasoupWorkers';
import { ServerMetrics } from './metrics/serverMetrics';
import { createDscpMarker } from './net/dscpMarker';
import { ControlSettings } from './operator/controlSettings';
import { DashboardFeed } from './operator/dashboardFeed';
import { generateToken, OperatorAuth } from './operator/operatorAuth';
import { operatorRoutes, type NewStream } from './operator/operatorRoutes';
import { takeSnapshot } from './operator/snapshot';
import { logChannelDrops } from './sfu/channelDropLog';
import { noDrops } from './sfu/mediaWorker';
import { liveRoutes } from './live/liveRoutes';
import { PublishGate } from './live/publishGate';
import { RtmpServer } from './live/rtmp/rtmpServer';
import { SrtServer } from './live/srt/srtServer';
import { WhipIngest } from './live/whip/whipRoutes';
import { WHIP_MEDIA_CODECS } from './live/whip/whipOffer';
import { iceServersFor } from './net/iceServers';
import { MediaWorkerPool } from './sfu/mediaWorkerPool';
import { SignalingServer } from './signaling/signalingServer';
import { withGains, withOperatorToken, withStreamRemoved } from './store/operatorState';
import { STORE_ADVICE, StoreError } from './store/stateCodec';
import { StateStore } from './store/stateStore';
import { streamsAtStart } from './store/streamsAtStart';
import { Stream } from './streams/stream';
import { StreamRegistry } from './streams/streamRegistry';
import { refuseViewers } from './cluster/viewerRefusal';
import { CLUSTER_WS_PATH } from './cluster/clusterSettings';
import { EdgeLink } from './cluster/edgeLink';
import { edgeStreamSettings } from './cluster/edgeStreams';
import { OriginHub } from './cluster/originHub';
import { ClusterRegistry, type OperatorChange } from './cluster/clusterRegistry';
import { CpuMeter } from './cluster/cpuMeter';
import { placementRoutes } from './cluster/placementRoutes';
import { hostname } from 'node:os';

const log = createLogger();
/** A publisher has this long from connecting to showing its key. */
const PUBLISH_HANDSHAKE_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig(process.env, fileURLToPath(new URL('../../client/dist', import.meta.url)));
  // The default clip has no sound: it plays with the sound track the server gives it (unless MEDIA_DIR leaves that folder out).
  if (config.source === DEFAULT_SOURCE) {
    const withSound = await demoClipWithSound(DEFAULT_SOURCE, DEMO_DIR).then((clip) => resolveSource(clip, config.mediaDirs)).catch((err: unknown) => {
      log.warn({ err }, 'the default clip plays without sound');
      return null;
    });
    if (withSound) config.source = withSound.kind === 'file' ? withSound.path : config.source;
  }
  const source = await resolveSource(config.source, config.mediaDirs).catch((err: unknown) => {
    throw err instanceof SourceError ? new ConfigError(`SOURCE: ${err.message}`) : err;
  });
  // Before anything starts: a state file that cannot be used stops the start.
  const store = await StateStore.open(config.stateDir);
  if (config.controlRecordDir !== undefined) await mkdir(config.controlRecordDir, { recursive: true });
  const streams = new StreamRegistry();
  let operatorToken = config.operatorToken ?? store.state.operatorToken;
  if (operatorToken === undefined) {
    const generated = generateToken();
    store.change((s) => withOperatorToken(s, generated));
    await store.saved();
    operatorToken = generated;
    log.warn({ operatorToken, stateFile: store.file }, 'OPERATOR_TOKEN is not set: the dashboard and operator API take this generated token, kept in the state file for later starts');
  } else if (config.operatorToken === undefined) {
    log.info({ stateFile: store.file }, 'OPERATOR_TOKEN is not set: the dashboard and operator API take the generated token kept in the state file ("operatorToken")');
  }
  const limits = new Limits(config.limits);
  const addressOf = (req: IncomingMessage) => clientAddress(req, config.trustedProxies);
  const auth = new OperatorAuth(
    operatorToken,
    { metrics: config.metricsToken, router: config.routerToken, cluster: config.cluster.role === 'all' ? undefined : config.cluster.token },
    { limit: limits.authFailures, addressOf, onRefused: () => limits.rejections.add('auth_failures') },
  );
  const control = new ControlSettings(config.control, (params) => streams.all().forEach((s) => s.setControlParams(params)));
  if (Object.keys(store.state.gains).length > 0) {
    try {
      control.update(store.state.gains);
    } catch (err) {
      if (err instanceof RequestError) throw new StoreError(`state file ${store.file}: ${err.message}. ${STORE_ADVICE}`);
      throw err;
    }
  }
  // Listen first: a taken port fails fast, before FFmpeg and mediasoup start.
  let ready = false;
  const router = new BottleneckFeedbackHub((fn) => streams.forEachViewer(fn));
  // Before the first mediasoup worker, so its resource usage is seen.
  const mediasoupWorkers = new MediasoupWorkers();
  const dscp = await createDscpMarker({
    instance: String(config.port),
    udpPorts: { min: config.rtc.port, max: config.rtc.port + config.rtc.workers - 1 },
    log: log.child({ component: 'dscp' }),
  });
  // Packets the workers' channel writers dropped (a worker that fell behind), counted across worker restarts.
  const channelDrops = noDrops();
  const publishGate = new PublishGate({
    live: () => store.state.live,
    stream: (id) => (streams.has(id) ? streams.get(id) : undefined),
    attempts: new AddressRateLimit({ burst: config.publish.attemptsPerMinute, perMinute: config.publish.attemptsPerMinute }),
    keyFailures: new AddressRateLimit({ burst: config.publish.keyFailuresPerMinute, perMinute: config.publish.keyFailuresPerMinute }),
  });
  const metrics = new ServerMetrics({ streams, router, control, mediasoup: mediasoupWorkers, limits, dscp, channelDrops, publish: publishGate });
  const snapshotSources = { streams, router, feedback: config.feedback, control, live: () => store.state.live };
  // With REDIS_URL: made once the server listens (its record names its port).
  let registry: ClusterRegistry | undefined;
  /** Set once an edge stopping with SIGTERM moves its viewers away (its registry record says so). */
  let draining = false;
  // Adding a source needs the media worker: until it runs, that answers 503 (and so does a WHIP publisher).
  let makeStream: ((s: NewStream) => Stream) | undefined;
  let mediaPool: MediaWorkerPool | undefined;
  const whip = config.publish.whip
    ? new WhipIngest({
        gate: publishGate,
        // A socket already gone has no address: its attempts share one bucket.
        addressOf: (req) => addressOf(req) ?? 'unknown',
        // Each publisher's router on the first worker, whose WebRtcServer port is RTC_PORT.
        media: async () => {
          if (!mediaPool) throw new RequestError('unavailable', 'starting');
          return { router: await mediaPool.createRouter(0, WHIP_MEDIA_CODECS), webRtcServer: mediaPool.webRtcServer(0) };
        },
        iceServers: (sessionId) => iceServersFor(config.ice, sessionId, Date.now()),
        maxSessions: config.publish.maxConnections,
        log: log.child({ component: 'whip' }),
      })
    : undefined;
  const routes = [
    ...apiRoutes({ streams, router, feedback: config.feedback, isReady: () => ready, auth }),
    ...auth.guard([
      ...operatorRoutes({
        ...snapshotSources,
        mediaDirs: config.mediaDirs,
        maxStreams: config.limits.maxStreams,
        createStream: (s) => {
          if (config.cluster.role === 'edge') throw new RequestError('bad_request', 'this server is an edge: it serves its origin\'s streams, add streams there');
          if (!makeStream) throw new RequestError('unavailable', 'starting');
          return makeStream(s);
        },
        store,
        publish: config.publish,
        share: (change) => void registry?.share(change),
      }),
      ...liveRoutes({ streams, store, publish: config.publish }),
    ]),
    ...placementRoutes({
      registry: config.registry ? () => registry : undefined,
      limit: limits.placeRequests,
      addressOf,
      onRefused: () => limits.rejections.add('place_requests'),
    }),
    ...auth.guard([{ method: 'GET', path: '/api/cluster/nodes', handler: async () => ({ registry: registry ? (registry.up ? 'up' : 'unreachable') : 'none', nodes: (await registry?.nodes()) ?? [] }) }]),
    ...auth.guard([{ method: 'GET', path: '/metrics', handler: () => metrics.render() }], 'metrics'),
    ...(whip?.routes ?? []),
  ];
  // With TLS_CERT_FILE and TLS_KEY_FILE: HTTPS and WSS, the certificate re-read when its files change.
  const tls = config.tls
    ? { files: config.tls, pair: await readTlsPair(config.tls).catch((err: unknown) => {
        throw err instanceof TlsFilesError ? new ConfigError(err.message) : err;
      }) }
    : undefined;
  const handler = httpHandler(routes, config.clientDir, log, {
    tls: tls !== undefined,
    connectOrigins: () => clusterOrigins(),
    // As placementRoutes: a node with a registry places viewers, a single server does not.
    page: playerPage(config.registry ? 'registry' : 'none'),
  });
  const https = tls ? createHttpsServer({ ...tls.pair, ...REQUEST_TIMEOUTS }, handler) : undefined;
  const http: Server = https ?? createServer(REQUEST_TIMEOUTS, handler);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, resolve);
  });
  const stopWatchingTls = tls && https ? keepCertificateCurrent(https, tls.files, tls.pair, log.child({ component: 'tls' })) : () => {};
  const media = await MediaWorkerPool.create(log.child({ component: 'mediasoup' }), { logLevel: 'warn' }, config.rtc, config.rtc.workers, {
    setting: config.rtc.packetSink,
    drops: channelDrops,
  });
  mediaPool = media;
  const stopLoggingDrops = logChannelDrops(channelDrops, log.child({ component: 'mediasoup' }));
  // What every stream of this server shares; an edge's streams take their sizes from the origin's.
  const streamOptions = () => ({
      encode: config.encode,
      renditions: config.renditions,
      renditionPolicy: config.renditionPolicy,
      ...(config.upta ? { upta: config.upta } : {}),
      media,
      keyframeMinGapMs: config.keyframeMinGapMs,
      fanout: config.fanout,
      control: control.current,
      feedback: config.feedback,
      ...(config.controlRecordDir !== undefined ? { controlRecordDir: config.controlRecordDir } : {}),
      dscp,
      limits,
      reconnectMs: config.publish.reconnectMs,
      log,
    });
  makeStream = (s) => new Stream({ ...streamOptions(), ...s });
  // An edge's streams are its origin's (EdgeLink), not its state file's.
  const atStart = config.cluster.role === 'edge' ? { streams: [], refused: [] } : await streamsAtStart(store.state, source, config.mediaDirs);
  for (const r of atStart.refused) {
    log.error({ stream: r.id, source: redactCredentials(r.source) }, `saved stream "${r.id}" is dropped: the source policy refuses its source (${r.reason})`);
    store.change((s) => withStreamRemoved(s, r.id));
  }
  await store.saved();
  // A source that fails now shows as a failed stream (and is retried); only a media worker failure stops the start.
  for (const s of atStart.streams) {
    const stream = makeStream(s);
    streams.add(stream);
    await stream.start();
  }
  const pipeListen = { ip: config.rtc.listenIp, announcedAddress: config.rtc.pipeAnnouncedAddress };
  const { cluster } = config;
  const edgeLink =
    cluster.role === 'edge'
      ? new EdgeLink({
          // ORIGIN_URL, or the origin the registry names at each connection.
          origin: async () => cluster.originUrl ?? (await registry?.origin()) ?? null,
          token: cluster.token,
          streams,
          media,
          listen: pipeListen,
          makeStream: (summary, upstream, origin) => {
            const stream = new Stream({ ...streamOptions(), ...edgeStreamSettings(summary, config.encode, origin), upstream });
            // The operator's controller for it, set on some node before this edge served it.
            const controller = registry?.sharedController(summary.id);
            if (controller) stream.setController(controller);
            return stream;
          },
          log: log.child({ component: 'edge' }),
        })
      : undefined;
  edgeLink?.start();
  const originHub = cluster.role === 'origin' ? new OriginHub({ streams, media, listen: pipeListen, auth, log: log.child({ component: 'origin' }) }) : undefined;
  media.on('restarted', (index) => {
    for (const s of streams.all()) {
      s.onMediaWorkerRestarted(index).catch((err: unknown) => log.error({ err, stream: s.id }, 'cannot recreate router'));
    }
    // The pipes between origin and edges: asked for again.
    edgeLink?.onMediaWorkerRestarted(index);
    originHub?.onMediaWorkerRestarted(index);
  });

  // Publishers come once the streams they publish to exist.
  const rtmp = config.publish.rtmp
    ? await RtmpServer.start({
        port: config.publish.rtmp.port,
        host: config.host,
        maxConnections: config.publish.maxConnections,
        publishTimeoutMs: PUBLISH_HANDSHAKE_TIMEOUT_MS,
        admit: (address, key) => publishGate.admit('rtmp', address, key),
        onMalformed: () => publishGate.countMalformed('rtmp'),
        log: log.child({ component: 'rtmp' }),
      }).catch((err: unknown) => {
        throw new ConfigError(`RTMP_PORT ${config.publish.rtmp!.port}: ${err instanceof Error ? err.message : String(err)}`);
      })
    : undefined;
  const srt = config.publish.srt
    ? await SrtServer.start({
        port: config.publish.srt.port,
        host: config.host,
        latencyMs: config.publish.srt.latencyMs,
        maxConnections: config.publish.maxConnections,
        publishTimeoutMs: PUBLISH_HANDSHAKE_TIMEOUT_MS,
        admit: (address, key) => publishGate.admit('srt', address, key),
        onMalformed: () => publishGate.countMalformed('srt'),
        log: log.child({ component: 'srt' }),
      }).catch((err: unknown) => {
        rtmp?.close();
        throw new ConfigError(`SRT_PORT ${config.publish.srt!.port}: ${err instanceof Error ? err.message : String(err)}`);
      })
    : undefined;
  const signaling = new SignalingServer(streams, limits, config.ice, log, addressOf);
  // An origin serves its edges, not players.
  const refusal = config.cluster.role === 'origin' ? refuseViewers() : undefined;
  const dashboard = new DashboardFeed({ auth, addressOf, snapshot: () => takeSnapshot(snapshotSources), log: log.child({ component: 'dashboard' }) });
  // A cluster's pages place their players on other nodes: the live nodes' pages may open this one's sockets.
  const allowedOrigins = config.registry ? config.allowedOrigins.withCluster(() => clusterOrigins()) : config.allowedOrigins;
  // The origin first: a foreign page's upgrade takes no place.
  const guarded = (kind: SocketKind, handler: UpgradeHandler) =>
    allowedOrigins.guard(limits.sockets.guard(kind, handler, addressOf), () => limits.rejections.add('foreign_origin'));
  routeUpgrades(http, {
    '/ws': guarded('signaling', refusal?.handler ?? ((req, socket, head) => signaling.handleUpgrade(req, socket, head))),
    [DASHBOARD_WS_PATH]: guarded('dashboard', (req, socket, head) => dashboard.handleUpgrade(req, socket, head)),
    // Edges are servers, not pages: no Origin to check; the cluster token is.
    ...(originHub ? { [CLUSTER_WS_PATH]: (req: IncomingMessage, socket: Duplex, head: Buffer) => originHub.handleUpgrade(req, socket, head) } : {}),
  }, log);
  ready = true;
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const scheme = tls ? 'https' : 'http';
  if (config.registry) {
    const cpu = new CpuMeter(mediasoupWorkers);
    const reachable = config.rtc.announcedAddress ?? (config.rtc.listenIp === '0.0.0.0' ? '127.0.0.1' : config.rtc.listenIp);
    const url = (config.registry.nodeUrl ?? new URL(`${scheme}://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`)).href;
    registry = new ClusterRegistry({
      redis: config.registry.redis,
      nodeId: config.registry.nodeId ?? `${config.cluster.role}-${hostname()}-${port}`,
      self: async () => ({
        role: config.cluster.role,
        url,
        viewers: streams.all().reduce((n, s) => n + s.viewerCount(), 0),
        viewersMax: config.limits.maxViewers,
        cpuPercentOfOneCore: await cpu.percentOfOneCore(),
        // An edge names only the streams it has frames for: one whose origin is gone gets no new viewers.
        streams: edgeLink ? edgeLink.pipedStreams() : streams.all().map((s) => s.id),
        draining,
      }),
      apply: (change) => applyShared(change),
      log: log.child({ component: 'registry' }),
    });
    registry.start();
  }
  /** The other live nodes' origins (`http://host:port`), as the registry's last heartbeat read them. */
  function clusterOrigins(): string[] {
    return (registry?.knownNodes() ?? []).filter((n) => n.id !== registry?.nodeId).map((n) => new URL(n.url).origin);
  }
  /** An operator change made on another node, or kept in the registry: applied here as if made here (the state file keeps it too). */
  function applyShared(change: OperatorChange): void {
    if (change.kind === 'gains') {
      control.update(change.gains);
      store.change((s) => withGains(s, change.gains));
    } else if (streams.has(change.stream)) {
      streams.get(change.stream).setController(change.controller);
    }
  }
  log.info(
    { port, role: config.cluster.role, rtcPort: config.rtc.port, ...(rtmp ? { rtmpPort: rtmp.port } : {}), ...(srt ? { srtPort: srt.port } : {}), streams: streams.all().map((s) => s.id), stateFile: store.file, dashboard: `${scheme}://localhost:${port}/dashboard` },
    `serving the player at ${scheme}://localhost:${port}`,
  );

  const viewerCount = () => streams.all().reduce((n, s) => n + s.viewerCount(), 0);
  /** Set while a drain waits for viewers to leave: a second signal ends the wait (the operator wants the node gone now). */
  let drainWait: AbortController | null = null;
  /**
   * An edge in a registry moves its viewers before it stops: marked draining at once (placement names it no
   * more), it tells its players to move and waits until they left, DRAIN_TIMEOUT_MS at most, or until a
   * second signal.
   */
  const drain = async (): Promise<void> => {
    if (!registry || config.cluster.role !== 'edge' || config.drainTimeoutMs === 0) return;
    draining = true;
    const wait = (drainWait = new AbortController());
    await registry.beatNow();
    const before = viewerCount();
    signaling.drain({ node: registry.nodeId, reason: 'this edge is stopping' });
    log.info({ viewers: before, timeoutMs: config.drainTimeoutMs }, 'draining: viewers told to move to other edges');
    const until = Date.now() + config.drainTimeoutMs;
    while (viewerCount() > 0 && Date.now() < until && !wait.signal.aborted) await new Promise((r) => setTimeout(r, 100));
    drainWait = null;
    log.info({ moved: before - viewerCount(), left: viewerCount(), cutShort: wait.signal.aborted }, 'drained');
  };

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) {
      if (drainWait && !drainWait.signal.aborted) {
        log.warn({ signal }, 'a second signal during the drain: stopping now, the viewers left are dropped');
        drainWait.abort();
      }
      return;
    }
    stopping = true;
    log.info({ signal }, 'stopping');
    if (signal === 'SIGTERM') await drain();
    stopWatchingTls();
    rtmp?.close();
    srt?.close();
    whip?.close();
    signaling.close();
    refusal?.close();
    edgeLink?.close();
    originHub?.close();
    registry?.close();
    dashboard.close();
    mediasoupWorkers.close();
    streams.closeAll();
    stopLoggingDrops();
    media.close();
    // The fallback exit starts only once the table is gone: an exit before would leave it behind.
    void dscp.close().finally(() => {
      http.close(() => process.exit(0));
      setTimeout(() => process.exit(0), 2000).unref();
    });
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof StoreError) log.fatal(err.message);
  else log.fatal({ err }, 'server failed to start');
  process.exit(1);
});
