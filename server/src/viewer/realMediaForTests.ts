/**
 * What the viewer tests that run against a real mediasoup worker share: a
 * silent log, the server's config, the test clip's layered frames, and a
 * worker with a DSCP marker made before the file's tests and closed after.
 */
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../config';
import { IvfReader } from '../ingest/ivfReader';
import { FrameLayering, type LayeredFrame } from '../layering/layeredFrame';
import { createDscpMarker, type DscpMarker } from '../net/dscpMarker';
import { localMediaWorker } from '../sfu/localMediaWorker';
import type { types as ms } from 'mediasoup';
import { Limits } from '../limits/limits';
import type { MediaWorker } from '../sfu/mediaWorker';
import type { ViewerSessionOptions } from './viewerSession';
import { PacerClock } from '../flow/pacerClock';

export const log = pino({ level: 'silent' });
export const config = loadConfig({}, '.');

export const frames: LayeredFrame[] = (() => {
  const layering = new FrameLayering(3000);
  return new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => layering.next(f.data));
})();

export interface RealMedia {
  media: MediaWorker;
  dscp: DscpMarker;
  /** The viewers' pacers' ticker, as a stream has one. */
  pacerClock: PacerClock;
  /** A PELS viewer of stream `s` on `router` with the default config; `extra` replaces any of it. */
  viewerOptions(router: ms.Router, id: string, extra?: Partial<ViewerSessionOptions>): ViewerSessionOptions;
}

/** Registers the hooks; the worker and marker are there once the file's tests run. */
export function realMedia(): RealMedia {
  const env = {
    pacerClock: new PacerClock(),
    viewerOptions: (router, id, extra = {}) => ({
      id,
      streamId: 's',
      router,
      mode: 'pels',
      control: config.control,
      feedback: 'rtcp',
      dscp: env.dscp,
      webRtcServer: env.media.webRtcServer,
      packetSinks: env.media.packetSinks,
      pacerClock: env.pacerClock,
      requests: env.media.requests,
      limits: new Limits(config.limits),
      log,
      renditions: 1,
      renditionPolicy: config.renditionPolicy,
      onKeyframeRequest: () => {},
      onClose: () => {},
      ...extra,
    }),
  } as RealMedia;
  before(async () => {
    const { media, rtcPort } = await localMediaWorker(log);
    env.media = media;
    env.dscp = await createDscpMarker({ instance: `test_${process.pid}`, udpPorts: { min: rtcPort, max: rtcPort }, log });
  });
  after(async () => {
    env.pacerClock.close();
    env.media.close();
    await env.dscp.close();
  });
  return env;
}
