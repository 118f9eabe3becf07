/**
 * mediasoup writes every message node sends a worker (each `producer.send`
 * packet among them) to the worker's channel socket at once: one write system
 * call a packet, tens of thousands a second with hundreds of viewers, which
 * was the largest single cost of node's time. Corked while a frame goes out
 * to every viewer, the socket writes the frame's messages together in one
 * writev. mediasoup keeps the socket to itself: it is fd 3 of the worker
 * process it spawns, taken here as `createWorker` spawns it (the version is
 * pinned, server/package.json).
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import * as mediasoup from 'mediasoup';
import type { types as ms } from 'mediasoup';

const require = createRequire(import.meta.url);
/** The module object mediasoup's Worker calls `spawn` on (builtins are one instance). */
const childProcess = require('node:child_process') as { spawn: (...args: unknown[]) => ChildProcess };

/** The worker's fd 3: what node writes requests and notifications to. */
const PRODUCER_CHANNEL_FD = 3;

/** A mediasoup worker and the socket its channel writes to. */
export async function createWorkerWithChannel(settings: ms.WorkerSettings): Promise<{ worker: ms.Worker; channel: Writable }> {
  const spawn = childProcess.spawn;
  let child: ChildProcess | undefined;
  // createWorker spawns before its first await: the replacement sees only this worker's spawn.
  childProcess.spawn = (...args: unknown[]) => (child = spawn(...args));
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

/**
 * Runs `send` with the sockets corked: what it writes to them leaves in one
 * writev per socket when it returns (or throws), in the order written.
 */
export function corked<T>(sockets: Iterable<Writable>, send: () => T): T {
  const held = [...sockets];
  for (const s of held) s.cork();
  try {
    return send();
  } finally {
    for (const s of held) s.uncork();
  }
}
