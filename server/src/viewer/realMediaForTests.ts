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
import type { MediaWorker } from '../sfu/mediaWorker';

export const log = pino({ level: 'silent' });
export const config = loadConfig({}, '.');

export const frames: LayeredFrame[] = (() => {
  const layering = new FrameLayering(3000);
  return new IvfReader().push(readFileSync(new URL('../../testdata/city-24.ivf', import.meta.url))).map((f) => layering.next(f.data));
})();

/** Registers the hooks; the worker and marker are there once the file's tests run. */
export function realMedia(): { media: MediaWorker; dscp: DscpMarker } {
  const env = {} as { media: MediaWorker; dscp: DscpMarker };
  before(async () => {
    const { media, rtcPort } = await localMediaWorker(log);
    env.media = media;
    env.dscp = await createDscpMarker({ instance: `test_${process.pid}`, udpPorts: { min: rtcPort, max: rtcPort }, log });
  });
  after(async () => {
    env.media.close();
    await env.dscp.close();
  });
  return env;
}
