import type { QualityBatch, QualityFrame } from '@pels/shared/protocol/signaling';
import { QualityWindow } from './qualityWindow';

export interface QualityFeedOptions {
  /** Rows kept (memory bound): 30 s of frames. */
  windowFrames: number;
  /** Rows a new subscriber gets first, for the frames already on their way to it. */
  backlogFrames: number;
  /** Batches go out this often. */
  intervalMs: number;
}

export type QualityListener = (batch: QualityBatch) => void;

/**
 * Hands a stream's PSNR table rows to its viewers in batches: each subscriber gets
 * every row once, in order, starting a little before it joined.
 */
export class QualityFeed {
  private readonly window: QualityWindow;
  private readonly subscribers = new Map<QualityListener, { lastSent: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: QualityFeedOptions) {
    this.window = new QualityWindow(opts.windowFrames);
    this.timer = setInterval(() => this.flush(), opts.intervalMs);
  }

  add(frames: readonly QualityFrame[]): void {
    this.window.add(frames);
  }

  /** The rows kept (the window), oldest first. */
  recentRows(): QualityFrame[] {
    return this.window.after(-1);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: QualityListener): () => void {
    const newest = this.window.newestIndex;
    this.subscribers.set(listener, { lastSent: newest === undefined ? -1 : newest - this.opts.backlogFrames });
    return () => this.subscribers.delete(listener);
  }

  close(): void {
    clearInterval(this.timer);
    this.subscribers.clear();
  }

  /**
   * Subscribers at the same row (all but those that just joined) get the same
   * batch object, so what they are sent is serialized once (ViewerConnection).
   */
  private flush(): void {
    const batches = new Map<number, QualityBatch>();
    for (const [listener, cursor] of this.subscribers) {
      let batch = batches.get(cursor.lastSent);
      if (!batch) {
        batch = { frames: this.window.after(cursor.lastSent) };
        batches.set(cursor.lastSent, batch);
      }
      if (!batch.frames.length) continue;
      cursor.lastSent = batch.frames.at(-1)!.index;
      listener(batch);
    }
  }
}
