import { fileURLToPath } from 'node:url';
import { loadConfig, ConfigError } from './config';
import { RouterFeedbackHub } from './feedback/routerFeedbackHub';
import { apiRoutes } from './http/apiRoutes';
import { createHttpServer } from './http/httpServer';
import { createLogger } from './log';
import { createDscpMarker } from './net/dscpMarker';
import { MediaWorker } from './sfu/mediaWorker';
import { SignalingServer } from './signaling/signalingServer';
import { Stream } from './streams/stream';
import { StreamRegistry } from './streams/streamRegistry';

const log = createLogger();

async function main(): Promise<void> {
  const config = loadConfig(process.env, fileURLToPath(new URL('../../client/dist', import.meta.url)));
  const streams = new StreamRegistry();
  // Listen first: a taken port fails fast, before FFmpeg and mediasoup start.
  let ready = false;
  const router = new RouterFeedbackHub((fn) => streams.forEachViewer(fn));
  const routes = apiRoutes({ streams, router, feedback: config.feedback, isReady: () => ready });
  const http = createHttpServer(routes, config.clientDir, log);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, resolve);
  });
  const media = await MediaWorker.create(log.child({ component: 'mediasoup' }), {
    logLevel: 'warn',
    rtcMinPort: config.rtc.minPort,
    rtcMaxPort: config.rtc.maxPort,
  });
  const dscp = await createDscpMarker({
    instance: String(config.port),
    udpPorts: { min: config.rtc.minPort, max: config.rtc.maxPort },
    log: log.child({ component: 'dscp' }),
  });
  const stream = new Stream({
    id: 'default',
    name: 'Default stream',
    source: config.source,
    encode: config.encode,
    webRtc: { listenIp: config.rtc.listenIp, announcedAddress: config.rtc.announcedAddress },
    createRouter: () => media.createRouter(),
    control: config.control,
    feedback: config.feedback,
    dscp,
    log,
  });
  streams.add(stream);
  await stream.start();
  media.on('restarted', () => {
    for (const s of streams.all()) {
      s.onMediaWorkerRestarted().catch((err: unknown) => log.error({ err, stream: s.id }, 'cannot recreate router'));
    }
  });

  const signaling = new SignalingServer(http, streams, log);
  ready = true;
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  log.info({ port, source: config.source }, `serving the player at http://localhost:${port}`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    signaling.close();
    streams.closeAll();
    media.close();
    void dscp.close().finally(() => http.close(() => process.exit(0)));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) log.fatal(err.message);
  else log.fatal({ err }, 'server failed to start');
  process.exit(1);
});
