/**
 * Worker thread entry: builds the PSNR table off the main thread, which sends every
 * viewer's frames (about 10 ms of arithmetic per source frame and rendition at 640x360).
 * Reference planes come straight from the reference reader thread; the main thread
 * sends the server's decode and each encoded frame's stream index.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scalePlane } from './planeScale';
import { PsnrTableBuilder } from './psnrTable';
import type { FromQualityWorker, QualityWorkerData, ReferencePlane, ToQualityWorker } from './qualityWorkerProtocol';
import { SourceAlignment } from './sourceAlignment';
import { lowerThisThread } from '../process/measurementPriority';
import type { QualityFrame } from '@pels/shared/protocol/signaling';

const port = parentPort;
if (!port) throw new Error('qualityWorker.ts runs as a worker thread');
// The measurement yields the CPU to the stream and its viewers (where it cannot, it runs as the rest).
lowerThisThread();
const { queueLimitMs, maxPendingSources } = workerData as QualityWorkerData;
/** Planes posted while the worker started waited for that, not for a backlog: their wait counts from here. */
const readyAt = Date.now();
const table = new PsnrTableBuilder({ maxPending: maxPendingSources });
let dropped = 0;
/** The newest run seen and its pairing of reference planes with stream indexes. */
let run = -1;
let alignment = new SourceAlignment();

/** A machine short of CPU: the stale plane costs nothing, so the queue drains and rows stay timely for the players. */
function stale(sentAt: number): boolean {
  if (Date.now() - Math.max(sentAt, readyAt) <= queueLimitMs) return false;
  dropped++;
  return true;
}

/** Run `r`'s pairing; null for an older run's late message. */
function alignmentOf(r: number): SourceAlignment | null {
  if (r < run) return null;
  if (r > run) {
    run = r;
    alignment = new SourceAlignment();
  }
  return alignment;
}

function send(frames: QualityFrame[]): void {
  if (!frames.length && !dropped) return;
  port!.postMessage({ type: 'rows', frames, dropped } satisfies FromQualityWorker);
  dropped = 0;
}

function onPlane(m: ReferencePlane): void {
  if (stale(m.sentAt)) return;
  const aligned = alignmentOf(m.run)?.source(m.k, m.plane);
  if (aligned) send(table.addSource(aligned.index, aligned.plane));
}

port.on('message', (m: ToQualityWorker) => {
  if (m.type === 'reference') {
    const backlog = new Int32Array(m.backlog);
    m.port.on('message', (p: ReferencePlane) => {
      // Handled, scored or not: the reader may queue another.
      Atomics.sub(backlog, 0, 1);
      onPlane(p);
    });
    return;
  }
  if (m.type === 'frame') {
    const aligned = alignmentOf(m.run)?.encoded(m.pts, m.index);
    if (aligned) send(table.addSource(aligned.index, aligned.plane));
    return;
  }
  if (stale(m.sentAt)) return send([]);
  send(table.addDecoded(m.index, m.tid, m.plane, m.scale ? scalePlane(m.plane, m.scale.from, m.scale.to) : m.plane));
});
