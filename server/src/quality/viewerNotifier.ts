import type { ViewerState } from '@pels/shared/protocol/api';
import type { Notification } from '@pels/shared/protocol/signaling';
import type { QualityListener } from './qualityFeed';

export interface ViewerNotifierOptions {
  /** The stream's PSNR table rows; returns the unsubscribe function. */
  subscribeQuality(listener: QualityListener): () => void;
  state(): ViewerState;
  notify(n: Notification): void;
}

/** The server's per-viewer state (rate, gamma, per-color loss) reaches the player this often. */
const STATE_INTERVAL_MS = 1000;

/**
 * What a joined player hears besides answers: its stream's PSNR table as it grows,
 * and its own server-side state once a second. Monitoring only: it reads, never steers.
 */
export class ViewerNotifier {
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(opts: ViewerNotifierOptions) {
    this.unsubscribe = opts.subscribeQuality((data) => opts.notify({ notification: 'quality', data }));
    this.timer = setInterval(() => opts.notify({ notification: 'viewerState', data: opts.state() }), STATE_INTERVAL_MS);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.timer);
  }
}
