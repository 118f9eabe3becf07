/**
 * Worker thread entry: builds a rendition's PSNR table off the main thread, which
 * sends every viewer's frames (about 10 ms of arithmetic per source frame and
 * rendition at 640x360). Reference planes come straight from the reference reader
 * thread; the main thread sends each encoded frame with its stream index, which
 * this thread decodes itself (a libvpx decoder process), so no picture passes
 * through the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { lowerThisThread } from '../process/measurementPriority';
import { LibvpxDecoder } from './libvpxDecoder';
import { scalePlane } from './planeScale';
import { PsnrTableBuilder } from './psnrTable';
import type { FromQualityWorker, QualityWork, QualityWorkerData, ReferencePlane, ToQualityWorker } from './qualityWorkerProtocol';
import { SourceAlignment } from './sourceAlignment';

const port = parentPort;
if (!port) throw new Error('qualityWorker.ts runs as a worker thread');
// The measurement yields the CPU to the stream and its viewers (where it cannot, it runs as the rest).
lowerThisThread();
const { queueLimitMs, maxPendingSources, decode, closing } = workerData as QualityWorkerData;
const closingFlag = new Int32Array(closing);
/** Whether the main thread has closed this worker, which then ends: what is still queued is not worth the CPU (see QualityWorkerData.closing). */
function endIfClosed(): boolean {
  if (Atomics.load(closingFlag, 0) !== 1) return false;
  void close();
  return true;
}
/** Planes posted while the worker started waited for that, not for a backlog: their wait counts from here. */
const readyAt = Date.now();
const table = new PsnrTableBuilder({ maxPending: maxPendingSources });
let dropped = 0;
/** The newest run seen and its pairing of reference planes with stream indexes. */
let run = -1;
let alignment = new SourceAlignment();
let decoder: LibvpxDecoder | null = null;
/** Frames in the decoder that waited past the queue limit here: decoded (the next ones need them), not scored. */
const late = new Set<number>();

/** A machine short of CPU: what waited too long is dropped, so the queue drains and rows stay timely for the players. */
function stale(sentAt: number): boolean {
  return Date.now() - Math.max(sentAt, readyAt) > queueLimitMs;
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
  if (endIfClosed()) return;
  if (stale(m.sentAt)) {
    dropped++;
    return send([]);
  }
  const aligned = alignmentOf(m.run)?.source(m.k, m.plane);
  if (aligned) send(table.addSource(aligned.index, aligned.plane));
}

function startDecoder(): LibvpxDecoder {
  const d: LibvpxDecoder = new LibvpxDecoder({
    ...decode,
    onPlane: ({ index, tid, plane }) => {
      if (endIfClosed()) return;
      if (late.delete(index)) {
        dropped++;
        return send([]);
      }
      send(table.addDecoded(index, tid, plane, decode.scale ? scalePlane(plane, decode.scale.from, decode.scale.to) : plane));
    },
    onFailure: (reason) => {
      if (decoder !== d) return;
      decoder = null;
      late.clear();
      port!.postMessage({ type: 'decoder-stopped', reason } satisfies FromQualityWorker);
    },
  });
  return d;
}

function onFrame(m: QualityWork & { sentAt: number }): void {
  if (endIfClosed()) return;
  const aligned = alignmentOf(m.run)?.encoded(m.pts, m.index);
  if (aligned) send(table.addSource(aligned.index, aligned.plane));
  // A (re)started decoder begins at a keyframe: the frames before it would not decode. Every frame is decoded, however long it
  // waited here (each is the next one's reference); only a late one's scoring is dropped. The decoder's own time does not count.
  if (!decoder && m.keyframe) decoder = startDecoder();
  if (!decoder) return;
  if (stale(m.sentAt)) late.add(m.index);
  decoder.decode(m.index, m.tid, m.data);
}

let ending = false;
/** Ends the thread once its decoder is gone (the main thread terminates it only if this takes too long). */
async function close(): Promise<void> {
  if (ending) return;
  ending = true;
  const d = decoder;
  decoder = null;
  await d?.close();
  process.exit(0);
}

port.on('message', (m: ToQualityWorker) => {
  if (m.type === 'frame') return onFrame(m);
  if (m.type === 'close') return void close();
  const backlog = new Int32Array(m.backlog);
  m.port.on('message', (p: ReferencePlane) => {
    // Handled, scored or not: the reader may queue another.
    Atomics.sub(backlog, 0, 1);
    onPlane(p);
  });
});
