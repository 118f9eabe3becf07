/**
 * Worker thread entry: builds the PSNR table off the main thread, which sends every
 * viewer's frames (about 10 ms of arithmetic per source frame and rendition at 640x360).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scalePlane } from './planeScale';
import { PsnrTableBuilder } from './psnrTable';
import type { FromQualityWorker, QualityWorkerData, ToQualityWorker } from './qualityWorkerProtocol';
import { lowerThisThread } from '../process/measurementPriority';

const port = parentPort;
if (!port) throw new Error('qualityWorker.ts runs as a worker thread');
// The measurement yields the CPU to the stream and its viewers (where it cannot, it runs as the rest).
lowerThisThread();
const { queueLimitMs, maxPendingSources } = workerData as QualityWorkerData;
/** Planes posted while the worker started waited for that, not for a backlog: their wait counts from here. */
const readyAt = Date.now();
const table = new PsnrTableBuilder({ maxPending: maxPendingSources });
let dropped = 0;

port.on('message', (m: ToQualityWorker) => {
  // A machine short of CPU: the stale plane costs nothing, so the queue drains and rows stay timely for the players.
  if (Date.now() - Math.max(m.sentAt, readyAt) > queueLimitMs) {
    dropped++;
    return;
  }
  const frames =
    m.type === 'source'
      ? table.addSource(m.index, m.plane)
      : table.addDecoded(m.index, m.tid, m.plane, m.scale ? scalePlane(m.plane, m.scale.from, m.scale.to) : m.plane);
  if (!frames.length && !dropped) return;
  port.postMessage({ type: 'rows', frames, dropped } satisfies FromQualityWorker);
  dropped = 0;
});
