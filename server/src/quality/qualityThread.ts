import { Worker } from 'node:worker_threads';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { Logger } from '../log';
import { QUEUE_LIMIT_MS, pendingSourcesFor, type FromQualityWorker, type QualityWork, type QualityWorkerData, type ToQualityWorker } from './qualityWorkerProtocol';

const RESTART_DELAY_MS = 1000;
/** Planes dropped by the worker (it fell behind) are logged at most this often. */
const DROP_LOG_MS = 10_000;

/**
 * The main thread's handle on the quality worker: posts planes, hands back rows,
 * and starts a new worker if one dies (its table restarts empty; rows resume).
 */
export class QualityThread {
  private worker: Worker | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private dropped = 0;
  private lastDropLog = -Infinity;

  constructor(
    private readonly onRows: (frames: QualityFrame[]) => void,
    private readonly log: Logger,
    /** How long a plane may wait in the worker's queue (QUEUE_LIMIT_MS; a test's own). */
    private readonly queueLimitMs = QUEUE_LIMIT_MS,
    /** The stream's frame rate: how many source planes come within the queue limit. */
    private readonly frameRate = 30,
  ) {
    this.start();
  }

  /** `sentAt`: when the plane was handed over (now; a test's own time). */
  post(work: QualityWork, sentAt = Date.now()): void {
    // The plane's buffer moves to the worker: the caller does not use it again.
    this.worker?.postMessage({ ...work, sentAt } satisfies ToQualityWorker, [work.plane.buffer as ArrayBuffer]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    void this.worker?.terminate();
    this.worker = null;
  }

  private noteDropped(n: number): void {
    this.dropped += n;
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_MS) return;
    this.log.warn({ planes: this.dropped, queueLimitMs: this.queueLimitMs }, 'quality measurement fell behind (the machine is short of CPU): planes dropped unscored, their frames get no PSNR row');
    this.dropped = 0;
    this.lastDropLog = now;
  }

  private start(): void {
    const worker = new Worker(bootstrap(new URL('./qualityWorker.ts', import.meta.url)), { eval: true, name: 'pels-quality', workerData: { queueLimitMs: this.queueLimitMs, maxPendingSources: pendingSourcesFor(this.queueLimitMs, this.frameRate) } satisfies QualityWorkerData });
    this.worker = worker;
    worker.on('message', (m: FromQualityWorker) => {
      if (m.dropped) this.noteDropped(m.dropped);
      if (m.frames.length) this.onRows(m.frames);
    });
    worker.on('error', (err) => this.log.error({ err }, 'quality worker failed'));
    worker.on('exit', (code) => {
      if (this.closed || this.worker !== worker) return;
      this.worker = null;
      this.log.warn({ code }, 'quality worker exited; restarting it');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (!this.closed) this.start();
      }, RESTART_DELAY_MS);
    });
  }
}

/**
 * The worker's first code. The server runs TypeScript through tsx, whose loader
 * does not reach worker threads on Node 20 (measured: "Unknown file extension
 * .ts", even with --import tsx in execArgv), so the worker registers it itself.
 */
function bootstrap(entry: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); });`;
}
