import { Worker } from 'node:worker_threads';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { Logger } from '../log';
import { DropWarning, noQualityDrops, type QualityDrops } from './dropWarning';
import { QUEUE_LIMIT_MS, pendingSourcesFor, type FromQualityWorker, type QualityWork, type QualityWorkerData, type ToQualityWorker } from './qualityWorkerProtocol';
import type { ReferenceSource } from './referenceReader';
import { workerBootstrap } from './workerBootstrap';

const RESTART_DELAY_MS = 1000;
/**
 * How long a closed worker has to end by itself (its decoder killed and reaped) before it is terminated, which
 * leaves the decoder unreaped. Generous: at load 25 on 2 cores the lower-priority thread can wait seconds for the CPU.
 */
const CLOSE_TIMEOUT_MS = 30_000;

export interface QualityThreadOptions {
  onRows(frames: QualityFrame[]): void;
  /** The stream's reference planes. */
  reference: ReferenceSource;
  /** The rendition's decode (QualityWorkerData). */
  decode: QualityWorkerData['decode'];
  log: Logger;
  /** How long a plane may wait in the worker's queue (QUEUE_LIMIT_MS; a test's own). */
  queueLimitMs?: number;
  /** Where the planes dropped are counted (the stream's, for /metrics); absent: a count of its own. */
  drops?: QualityDrops;
}

/**
 * The main thread's handle on a quality worker: posts the encoded frames with
 * their indexes, hands back rows, subscribes each worker it starts to the
 * stream's reference planes, and starts a new worker if one dies (its table
 * restarts empty; rows resume).
 */
export class QualityThread {
  private worker: Worker | null = null;
  private unsubscribe: (() => void) | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** QualityWorkerData.closing, set once by close(); a worker restarted before that shares it. */
  private readonly closing = new Int32Array(new SharedArrayBuffer(4));
  private readonly drops: DropWarning;
  private readonly queueLimitMs: number;

  constructor(private readonly opts: QualityThreadOptions) {
    this.queueLimitMs = opts.queueLimitMs ?? QUEUE_LIMIT_MS;
    this.drops = new DropWarning(opts.log, 'quality thread', { queueLimitMs: this.queueLimitMs }, opts.drops ?? noQualityDrops());
    this.start();
  }

  /** `sentAt`: when it was handed over (now; a test's own time). */
  post(work: QualityWork, sentAt = Date.now()): void {
    // The frame's bytes are copied out of the buffer they share (the encoder's output), and the copy moves to the worker.
    // A Uint8Array made from it always copies; a Buffer's slice() would share, and the transfer would detach the original.
    const data = new Uint8Array(work.data);
    this.worker?.postMessage({ ...work, data, sentAt } satisfies ToQualityWorker, [data.buffer]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.unsubscribe?.();
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    // The worker kills its decoder and waits for it to exit, then ends: terminated at once, it would leave the decoder unreaped.
    Atomics.store(this.closing, 0, 1);
    const timer = setTimeout(() => {
      this.opts.log.warn({ afterMs: CLOSE_TIMEOUT_MS }, 'quality worker did not end after its close; terminated (its decoder may be left unreaped)');
      void worker.terminate();
    }, CLOSE_TIMEOUT_MS).unref();
    worker.once('exit', () => clearTimeout(timer));
    worker.postMessage({ type: 'close' } satisfies ToQualityWorker);
  }

  private start(): void {
    const workerData: QualityWorkerData = { queueLimitMs: this.queueLimitMs, maxPendingSources: pendingSourcesFor(this.queueLimitMs, this.opts.decode.frameRate), decode: this.opts.decode, closing: this.closing.buffer as SharedArrayBuffer };
    const worker = new Worker(workerBootstrap(new URL('./qualityWorker.ts', import.meta.url)), { eval: true, name: 'pels-quality', workerData });
    this.worker = worker;
    // The worker's end of a reference channel, now and after each restart of the reader.
    this.unsubscribe = this.opts.reference.subscribe((port, backlog) => {
      if (this.worker === worker) worker.postMessage({ type: 'reference', port, backlog } satisfies ToQualityWorker, [port]);
      else port.close();
    });
    worker.on('message', (m: FromQualityWorker) => {
      if (this.closed) return;
      if (m.type === 'decoder-stopped') return this.opts.log.warn({ reason: m.reason }, 'quality decoder stopped; restarting it at the next keyframe');
      if (m.dropped) this.drops.note(m.dropped);
      if (m.frames.length) this.opts.onRows(m.frames);
    });
    worker.on('error', (err) => this.opts.log.error({ err }, 'quality worker failed'));
    worker.on('exit', (code) => {
      if (this.closed || this.worker !== worker) return;
      this.worker = null;
      this.unsubscribe?.();
      this.unsubscribe = null;
      this.opts.log.warn({ code }, 'quality worker exited; restarting it');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.closed) this.start();
      }, RESTART_DELAY_MS);
    });
  }
}
