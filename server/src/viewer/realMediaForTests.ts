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
import type { FlowModeName } from '@pels/shared/protocol/api';
import { probeBoardFor } from '@pels/shared/pels/renditionPolicy';
import type { ViewerSessionOptions, ViewerStream } from './viewerSessionOptions';
import { PacerClock } from '../flow/pacerClock';

export const log = pino({ level: 'silent' });
export const config = loadConfig({}, '.');

export const frames: LayeredFrame[] = (() => {
  const layering = new FrameLayering(3000);
  return new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => layering.next(f.data));
})();

export interface ViewerOptionsExtra {
  mode?: FlowModeName;
  dscp?: DscpMarker;
  stream?: Partial<ViewerStream>;
}

export interface RealMedia {
  media: MediaWorker;
  dscp: DscpMarker;
  /** The viewers' pacers' ticker, as a stream has one. */
  pacerClock: PacerClock;
  /** A PELS viewer of stream `s` on `router` with the default config; `extra` replaces its mode, DSCP marker or any of the stream's part. */
  viewerOptions(router: ms.Router, id: string, extra?: ViewerOptionsExtra): ViewerSessionOptions;
}

/** Registers the hooks; the worker and marker are there once the file's tests run. */
export function realMedia(): RealMedia {
  const env = {
    pacerClock: new PacerClock(),
    viewerOptions: (router: ms.Router, id: string, extra: ViewerOptionsExtra = {}): ViewerSessionOptions => ({
      id,
      mode: extra.mode ?? 'pels',
      worker: { router, webRtcServer: env.media.webRtcServer, packetSinks: env.media.packetSinks, requests: env.media.requests },
      stream: {
        id: 's',
        renditions: 1,
        renditionPolicy: config.renditionPolicy,
        probeBoard: probeBoardFor(config.renditionPolicy),
        pacerClock: env.pacerClock,
        onKeyframeRequest: () => {},
        audio: { producer: null, timestampBase: 0 },
        ...extra.stream,
      },
      control: { loop: config.control, feedback: 'rtcp' },
      server: { dscp: extra.dscp ?? env.dscp, limits: new Limits(config.limits), log },
      onClose: () => {},
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
