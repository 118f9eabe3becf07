import { Worker } from 'node:worker_threads';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { Logger } from '../log';
import { DropWarning } from './dropWarning';
import { QUEUE_LIMIT_MS, pendingSourcesFor, type FromQualityWorker, type QualityWork, type QualityWorkerData, type ToQualityWorker } from './qualityWorkerProtocol';
import type { ReferenceSource } from './referenceReader';
import { workerBootstrap } from './workerBootstrap';

const RESTART_DELAY_MS = 1000;

/**
 * The main thread's handle on a quality worker: posts the server's decode and the
 * frames' indexes, hands back rows, subscribes each worker it starts to the
 * stream's reference planes, and starts a new worker if one dies (its table
 * restarts empty; rows resume).
 */
export class QualityThread {
  private worker: Worker | null = null;
  private unsubscribe: (() => void) | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly drops: DropWarning;

  constructor(
    private readonly onRows: (frames: QualityFrame[]) => void,
    private readonly reference: ReferenceSource,
    private readonly log: Logger,
    /** How long a plane may wait in the worker's queue (QUEUE_LIMIT_MS; a test's own). */
    private readonly queueLimitMs = QUEUE_LIMIT_MS,
    /** The stream's frame rate: how many source planes come within the queue limit. */
    private readonly frameRate = 30,
  ) {
    this.drops = new DropWarning(log, { at: 'quality thread', queueLimitMs });
    this.start();
  }

  /** `sentAt`: when it was handed over (now; a test's own time). */
  post(work: QualityWork, sentAt = Date.now()): void {
    // A plane's buffer moves to the worker: the caller does not use it again.
    this.worker?.postMessage({ ...work, sentAt } satisfies ToQualityWorker, work.type === 'decoded' ? [work.plane.buffer as ArrayBuffer] : []);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.unsubscribe?.();
    void this.worker?.terminate();
    this.worker = null;
  }

  private start(): void {
    const worker = new Worker(workerBootstrap(new URL('./qualityWorker.ts', import.meta.url)), { eval: true, name: 'pels-quality', workerData: { queueLimitMs: this.queueLimitMs, maxPendingSources: pendingSourcesFor(this.queueLimitMs, this.frameRate) } satisfies QualityWorkerData });
    this.worker = worker;
    // The worker's end of a reference channel, now and after each restart of the reader.
    this.unsubscribe = this.reference.subscribe((port, backlog) => {
      if (this.worker === worker) worker.postMessage({ type: 'reference', port, backlog } satisfies ToQualityWorker, [port]);
      else port.close();
    });
    worker.on('message', (m: FromQualityWorker) => {
      if (m.dropped) this.drops.note(m.dropped);
      if (m.frames.length) this.onRows(m.frames);
    });
    worker.on('error', (err) => this.log.error({ err }, 'quality worker failed'));
    worker.on('exit', (code) => {
      if (this.closed || this.worker !== worker) return;
      this.worker = null;
      this.unsubscribe?.();
      this.unsubscribe = null;
      this.log.warn({ code }, 'quality worker exited; restarting it');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.closed) this.start();
      }, RESTART_DELAY_MS);
    });
  }
}
