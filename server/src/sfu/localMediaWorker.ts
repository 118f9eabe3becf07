import { randomInt } from 'node:crypto';
import type { Logger } from '../log';
import { MediaWorker } from './mediaWorker';

/**
 * A media worker on 127.0.0.1 with its media port picked at random (tests:
 * another process may hold any fixed port), trying a few ports before giving up.
 */
export async function localMediaWorker(log: Logger): Promise<{ media: MediaWorker; rtcPort: number }> {
  for (let tries = 1; ; tries++) {
    const rtcPort = randomInt(20_000, 30_000);
    try {
      return { media: await MediaWorker.create(log, { logLevel: 'warn' }, { listenIp: '127.0.0.1', announcedAddress: undefined, port: rtcPort }), rtcPort };
    } catch (err) {
      if (tries === 5) throw err;
    }
  }
}
