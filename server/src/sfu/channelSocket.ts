/**
 * The socket node writes a mediasoup worker's channel messages to: fd 3 of
 * the worker process mediasoup spawns. mediasoup keeps it to itself; the
 * viewers' packets go to it straight (packetChannel.ts), so it is taken here
 * as `createWorker` spawns the worker (the version is pinned,
 * server/package.json).
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import * as mediasoup from 'mediasoup';
import type { types as ms } from 'mediasoup';
import { childEnv } from '../process/childEnv';

const require = createRequire(import.meta.url);
/** The module object mediasoup's Worker calls `spawn` on (builtins are one instance). */
const childProcess = require('node:child_process') as { spawn: (file: unknown, args: unknown, options: SpawnOptions) => ChildProcess };

/** The worker's fd 3: what node writes requests and notifications to. */
const PRODUCER_CHANNEL_FD = 3;

/** A mediasoup worker and the socket its channel writes to. */
export async function createWorkerWithChannel(settings: ms.WorkerSettings): Promise<{ worker: ms.Worker; channel: Writable }> {
  const spawn = childProcess.spawn;
  let child: ChildProcess | undefined;
  // createWorker spawns before its first await: the replacement sees only this worker's spawn.
  // mediasoup passes the worker all of node's environment: it gets the clean one, with the version it checks.
  childProcess.spawn = (file: unknown, args: unknown, options: SpawnOptions) => {
    const given: NodeJS.ProcessEnv = options.env ?? {};
    return (child = spawn(file, args, { ...options, env: childEnv({ MEDIASOUP_VERSION: given.MEDIASOUP_VERSION ?? '' }) }));
  };
  let created: Promise<ms.Worker>;
  try {
    created = mediasoup.createWorker(settings);
  } finally {
    childProcess.spawn = spawn;
  }
  const worker = await created;
  const channel = child?.stdio[PRODUCER_CHANNEL_FD];
  if (!(channel instanceof Writable)) {
    worker.close();
    throw new Error("cannot find the mediasoup worker's channel socket");
  }
  return { worker, channel };
}
