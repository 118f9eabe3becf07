import type { ViewerState } from '@pels/shared/protocol/api';
import type { Notification, StreamInfo } from '@pels/shared/protocol/signaling';
import type { QualityListener } from './qualityFeed';
import { QualityRenditions } from './qualityRenditions';

export interface ViewerNotifierOptions {
  /** One rendition's PSNR table rows; returns the unsubscribe function. */
  subscribeQuality(rendition: number, listener: QualityListener): () => void;
  /** The stream's state changes; returns the unsubscribe function. */
  subscribeStreamState(listener: (info: StreamInfo) => void): () => void;
  state(): ViewerState;
  notify(n: Notification): void;
}

/** The server's per-viewer state (rate, gamma, per-color loss) reaches the player this often. */
const STATE_INTERVAL_MS = 1000;
/** Rows of a rendition the viewer left keep coming this long (its frames in flight, rows behind them). */
const QUALITY_LINGER_MS = 3000;

/**
 * What a joined player hears besides answers: its stream's state when it changes
 * (stalled, restarting, running again), its stream's PSNR table as it grows, and
 * its own server-side state once a second. It reads, never steers.
 */
export class ViewerNotifier {
  private readonly unsubscribeState: () => void;
  /** By rendition: the rows the viewer is sent (QualityRenditions says which). */
  private readonly quality = new Map<number, () => void>();
  private readonly renditions = new QualityRenditions(QUALITY_LINGER_MS);
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: ViewerNotifierOptions) {
    this.unsubscribeState = opts.subscribeStreamState((data) => opts.notify({ notification: 'streamState', data }));
    this.followRendition(opts.state());
    this.timer = setInterval(() => {
      const state = opts.state();
      this.followRendition(state);
      opts.notify({ notification: 'viewerState', data: state });
    }, STATE_INTERVAL_MS);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribeState();
    for (const unsubscribe of this.quality.values()) unsubscribe();
    this.quality.clear();
    clearInterval(this.timer);
  }

  /** A rendition's rows start with the feed's backlog, so a switch seen up to a tick late loses none. */
  private followRendition(state: ViewerState): void {
    const { start, stop } = this.renditions.update(state.rendition.current, state.rendition.pending, Date.now());
    for (const r of stop) {
      this.quality.get(r)?.();
      this.quality.delete(r);
    }
    for (const r of start) this.quality.set(r, this.opts.subscribeQuality(r, (data) => this.opts.notify({ notification: 'quality', data })));
  }
}
