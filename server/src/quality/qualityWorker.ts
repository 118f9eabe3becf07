/**
 * Worker thread entry: builds the PSNR table off the main thread, which sends every
 * viewer's frames (about 3 ms of arithmetic per source frame at 640x360).
 */
import { parentPort } from 'node:worker_threads';
import { scalePlane } from './planeScale';
import { PsnrTableBuilder } from './psnrTable';
import type { FromQualityWorker, ToQualityWorker } from './qualityWorkerProtocol';

const port = parentPort;
if (!port) throw new Error('qualityWorker.ts runs as a worker thread');
const table = new PsnrTableBuilder();

port.on('message', (m: ToQualityWorker) => {
  const frames =
    m.type === 'source'
      ? table.addSource(m.index, m.plane)
      : table.addDecoded(m.index, m.tid, m.plane, m.scale ? scalePlane(m.plane, m.scale.from, m.scale.to) : m.plane);
  if (frames.length) port.postMessage({ type: 'rows', frames } satisfies FromQualityWorker);
});
