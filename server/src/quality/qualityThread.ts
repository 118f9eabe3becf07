import { Worker } from 'node:worker_threads';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { Logger } from '../log';
import type { FromQualityWorker, ToQualityWorker } from './qualityWorkerProtocol';

const RESTART_DELAY_MS = 1000;

/**
 * The main thread's handle on the quality worker: posts planes, hands back rows,
 * and starts a new worker if one dies (its table restarts empty; rows resume).
 */
export class QualityThread {
  private worker: Worker | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly onRows: (frames: QualityFrame[]) => void,
    private readonly log: Logger,
  ) {
    this.start();
  }

  post(message: ToQualityWorker): void {
    // The plane's buffer moves to the worker: the caller does not use it again.
    this.worker?.postMessage(message, [message.plane.buffer as ArrayBuffer]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    void this.worker?.terminate();
    this.worker = null;
  }

  private start(): void {
    const worker = new Worker(bootstrap(new URL('./qualityWorker.ts', import.meta.url)), { eval: true, name: 'pels-quality' });
    this.worker = worker;
    worker.on('message', (m: FromQualityWorker) => this.onRows(m.frames));
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
