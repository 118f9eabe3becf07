/**
 * Ports for a server a test starts on 127.0.0.1, found free by the OS rather than drawn at random: a random
 * draw in a fixed range can land on another process's port (another test's server, an engineer's), and the
 * server then fails to start.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { defaultMediaWorkers } from '../config';

const HOST = '127.0.0.1';

/** A TCP port the OS picks free on 127.0.0.1 (closed again: the caller's server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Binds `port` for TCP and UDP on 127.0.0.1 and lets it go again: whether both are free now. */
async function bindsBoth(port: number): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, HOST, () => s.close(() => resolve(true)));
  });
  if (!tcp) return false;
  const udp = createSocket('udp4');
  const free = await new Promise<boolean>((resolve) => {
    udp.once('error', () => resolve(false));
    udp.bind(port, HOST, () => resolve(true));
  });
  await new Promise<void>((r) => udp.close(() => r()));
  return free;
}

/**
 * A media port (RTC_PORT) free for `workers` media workers on 127.0.0.1: worker i takes the port + i, TCP and
 * UDP. `pick` proposes a first port (the OS's free TCP port; a test gives its own).
 */
export async function freeRtcPort(workers = 1, pick: () => Promise<number> = freePort): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const port = await pick();
    if (port + workers - 1 > 65535) continue;
    let free = true;
    for (let i = 0; i < workers && free; i++) free = await bindsBoth(port + i);
    if (free) return port;
  }
  throw new Error(`no media port free for TCP and UDP (${workers} worker(s)) on ${HOST}`);
}

/** RTC_PORT for a server started with `env`: its own, or one free for its media workers (MEDIA_WORKERS, by default the cores). */
export async function rtcPortFor(env: Record<string, string | undefined>): Promise<number> {
  return env.RTC_PORT ? Number(env.RTC_PORT) : freeRtcPort(env.MEDIA_WORKERS ? Number(env.MEDIA_WORKERS) : defaultMediaWorkers());
}
