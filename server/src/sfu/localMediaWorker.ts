import { randomInt } from 'node:crypto';
import type { Logger } from '../log';
import { MediaWorker } from './mediaWorker';
import { MediaWorkerPool } from './mediaWorkerPool';

const LOCAL = { listenIp: '127.0.0.1', announcedAddress: undefined };

/**
 * A media worker on 127.0.0.1 with its media port picked at random (tests:
 * another process may hold any fixed port), trying a few ports before giving up.
 */
export async function localMediaWorker(log: Logger): Promise<{ media: MediaWorker; rtcPort: number }> {
  const { made: media, rtcPort } = await onRandomPort((port) => MediaWorker.create(log, { logLevel: 'warn' }, { ...LOCAL, port }));
  return { media, rtcPort };
}

/** `count` media workers on 127.0.0.1, on consecutive ports from one picked at random. */
export async function localMediaWorkers(log: Logger, count: number): Promise<{ pool: MediaWorkerPool; rtcPort: number }> {
  const { made: pool, rtcPort } = await onRandomPort((port) => MediaWorkerPool.create(log, { logLevel: 'warn' }, { ...LOCAL, port }, count));
  return { pool, rtcPort };
}

async function onRandomPort<T>(make: (port: number) => Promise<T>): Promise<{ made: T; rtcPort: number }> {
  for (let tries = 1; ; tries++) {
    const rtcPort = randomInt(20_000, 30_000);
    try {
      return { made: await make(rtcPort), rtcPort };
    } catch (err) {
      if (tries === 5) throw err;
    }
  }
}
