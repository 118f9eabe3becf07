import { closeSync } from 'node:fs';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../log';
import { DropWarning, noQualityDrops, type QualityDrops } from './dropWarning';
import { QUEUE_LIMIT_MS, pendingSourcesFor, type FromReferenceReader, type ReferenceReaderData, type ToReferenceReader } from './qualityWorkerProtocol';
import { workerBootstrap } from './workerBootstrap';

const RESTART_DELAY_MS = 1000;

/** A quality worker's end of a reference channel, and the count of planes queued to it. */
export type ReferenceDelivery = (port: MessagePort, backlog: SharedArrayBuffer) => void;

/** Where quality threads get their reference planes (a stream's ReferenceReader). */
export interface ReferenceSource {
  /** `deliver` gets a channel now and a new one whenever the reader restarts; returns the unsubscribe function. */
  subscribe(deliver: ReferenceDelivery): () => void;
}

export interface ReferenceReaderOptions {
  /** The source's size: one Y plane is width x height bytes. */
  width: number;
  height: number;
  frameRate: number;
  /** The quality threads' queue limit: a quality worker may have this long's planes queued. */
  queueLimitMs?: number;
  log: Logger;
  /** Where the plane copies dropped are counted (the stream's, for /metrics); absent: a count of its own. */
  drops?: QualityDrops;
}

/**
 * A stream's reference reader: the main thread's handle on the thread that reads
 * each FFmpeg run's reference planes (referenceReaderWorker.ts) and posts them to
 * every rendition's quality worker, so that neither node's event loop nor the
 * measurement's pace can hold FFmpeg back. A reader that dies is started again and
 * its consumers given new channels; a run's pipe given to a dead reader is closed
 * (FFmpeg's next write fails, and the ingest restarts the run).
 */
export class ReferenceReader implements ReferenceSource {
  private worker: Worker | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly subscribers = new Set<ReferenceDelivery>();
  private readonly countsBuffer = new SharedArrayBuffer(8);
  private readonly counts = new Int32Array(this.countsBuffer);
  private readonly drops: DropWarning;

  constructor(private readonly opts: ReferenceReaderOptions) {
    this.drops = new DropWarning(opts.log, 'reference reader', { queueLimitMs: opts.queueLimitMs ?? QUEUE_LIMIT_MS }, opts.drops ?? noQualityDrops());
    this.start();
  }

  /** Planes read from FFmpeg, and plane copies dropped because a quality worker was behind, since the start; read at any moment (another thread counts them). */
  get planes(): { read: number; dropped: number } {
    return { read: Atomics.load(this.counts, 0), dropped: Atomics.load(this.counts, 1) };
  }

  /** Run `run`'s pipe (its read end): the reader owns it from now on. */
  read(run: number, fd: number): void {
    if (!this.worker) {
      closeSync(fd);
      return;
    }
    this.post({ type: 'run', run, fd });
  }

  subscribe(deliver: ReferenceDelivery): () => void {
    this.subscribers.add(deliver);
    this.connect(deliver);
    return () => this.subscribers.delete(deliver);
  }

  /** The reader closes its pipes and ends. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.post({ type: 'close' });
    this.worker = null;
    this.subscribers.clear();
  }

  private post(m: ToReferenceReader, transfer: MessagePort[] = []): void {
    this.worker?.postMessage(m, transfer);
  }

  private connect(deliver: ReferenceDelivery): void {
    if (!this.worker) return;
    const { port1, port2 } = new MessageChannel();
    const backlog = new SharedArrayBuffer(4);
    this.post({ type: 'consumer', port: port1, backlog }, [port1]);
    deliver(port2, backlog);
  }

  private start(): void {
    const { width, height, frameRate, queueLimitMs = QUEUE_LIMIT_MS } = this.opts;
    const workerData: ReferenceReaderData = { planeBytes: width * height, maxQueued: pendingSourcesFor(queueLimitMs, frameRate), counts: this.countsBuffer };
    const worker = new Worker(workerBootstrap(new URL('./referenceReaderWorker.ts', import.meta.url)), { eval: true, name: 'pels-reference', workerData });
    this.worker = worker;
    worker.on('message', (m: FromReferenceReader) => this.drops.note(m.planes));
    worker.on('error', (err) => this.opts.log.error({ err }, 'reference reader failed'));
    worker.on('exit', (code) => {
      if (this.closed || this.worker !== worker) return;
      this.worker = null;
      this.opts.log.warn({ code }, 'reference reader exited; restarting it');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (this.closed) return;
        this.start();
        for (const deliver of this.subscribers) this.connect(deliver);
      }, RESTART_DELAY_MS);
    });
  }
}
