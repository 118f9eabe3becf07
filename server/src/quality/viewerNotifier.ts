import type { ViewerState } from '@pels/shared/protocol/api';
import type { Notification, StreamInfo } from '@pels/shared/protocol/signaling';
import type { QualityListener } from './qualityFeed';

export interface ViewerNotifierOptions {
  /** The stream's PSNR table rows; returns the unsubscribe function. */
  subscribeQuality(listener: QualityListener): () => void;
  /** The stream's state changes; returns the unsubscribe function. */
  subscribeStreamState(listener: (info: StreamInfo) => void): () => void;
  state(): ViewerState;
  notify(n: Notification): void;
}

/** The server's per-viewer state (rate, gamma, per-color loss) reaches the player this often. */
const STATE_INTERVAL_MS = 1000;

/**
 * What a joined player hears besides answers: its stream's state when it changes
 * (stalled, restarting, running again), its stream's PSNR table as it grows, and
 * its own server-side state once a second. It reads, never steers.
 */
export class ViewerNotifier {
  private readonly unsubscribe: Array<() => void>;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(opts: ViewerNotifierOptions) {
    this.unsubscribe = [
      opts.subscribeQuality((data) => opts.notify({ notification: 'quality', data })),
      opts.subscribeStreamState((data) => opts.notify({ notification: 'streamState', data })),
    ];
    this.timer = setInterval(() => opts.notify({ notification: 'viewerState', data: opts.state() }), STATE_INTERVAL_MS);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    clearInterval(this.timer);
  }
}
