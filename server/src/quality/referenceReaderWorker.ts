/**
 * Worker thread entry: reads each FFmpeg run's reference planes off the main
 * thread and hands them to the quality worker threads. FFmpeg has one output
 * thread for all its outputs (the encoders' frames, the sound, these planes), and
 * a plane (230 kB at 640x360) is larger than a pipe's buffer: read on node's busy
 * main thread, it held FFmpeg, and with it the stream and its sound, to the main
 * thread's pace. This thread does nothing else, at the server's own priority, and
 * never waits for a consumer: a quality worker with `maxQueued` planes waiting
 * gets none until it catches up (the copy is dropped and counted).
 */
import { Socket } from 'node:net';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PlaneSplitter } from './planeSplitter';
import type { FromReferenceReader, ReferencePlane, ReferenceReaderData, ToReferenceReader } from './qualityWorkerProtocol';

const parent = parentPort;
if (!parent) throw new Error('referenceReaderWorker.ts runs as a worker thread');
const { planeBytes, maxQueued, counts: countsBuffer } = workerData as ReferenceReaderData;
/** [planes read, plane copies dropped]. */
const counts = new Int32Array(countsBuffer);
const consumers = new Map<MessagePort, Int32Array>();
const pipes = new Set<Socket>();
/** Drops not yet told to the main thread; told at most once a second. */
let unreported = 0;
let reportTimer: NodeJS.Timeout | null = null;

function deliver(run: number, k: number, plane: Uint8Array): void {
  Atomics.add(counts, 0, 1);
  const open = [...consumers].filter(([, backlog]) => Atomics.load(backlog, 0) < maxQueued);
  dropped(consumers.size - open.length);
  open.forEach(([port, backlog], i) => {
    // The last consumer takes the plane itself; the others a copy each.
    const own = i === open.length - 1 ? plane : plane.slice();
    Atomics.add(backlog, 0, 1);
    port.postMessage({ type: 'plane', run, k, plane: own, sentAt: Date.now() } satisfies ReferencePlane, [own.buffer as ArrayBuffer]);
  });
}

function dropped(n: number): void {
  if (n === 0) return;
  Atomics.add(counts, 1, n);
  unreported += n;
  reportTimer ??= setTimeout(() => {
    reportTimer = null;
    parent!.postMessage({ type: 'dropped', planes: unreported } satisfies FromReferenceReader);
    unreported = 0;
  }, 1000);
}

/** One run's pipe until FFmpeg closes it; a new splitter each run, so a plane cut short by a killed FFmpeg is not carried into the next. */
function read(run: number, fd: number): void {
  const splitter = new PlaneSplitter(planeBytes);
  let k = 0;
  const pipe = new Socket({ fd, readable: true, writable: false });
  pipes.add(pipe);
  pipe.on('data', (chunk: Buffer) => {
    for (const plane of splitter.push(chunk)) deliver(run, k++, plane);
  });
  // FFmpeg gone: end of file (or an error reading); the socket closes the fd.
  pipe.on('end', () => pipe.destroy());
  pipe.on('error', () => pipe.destroy());
  pipe.on('close', () => pipes.delete(pipe));
}

parent.on('message', (m: ToReferenceReader) => {
  if (m.type === 'run') read(m.run, m.fd);
  else if (m.type === 'consumer') {
    consumers.set(m.port, new Int32Array(m.backlog));
    // The quality worker's end closes when that worker ends.
    m.port.on('close', () => consumers.delete(m.port));
  } else {
    for (const pipe of pipes) pipe.destroy();
    for (const port of consumers.keys()) port.close();
    if (reportTimer) clearTimeout(reportTimer);
    parent.close();
  }
});
