import type { FeedbackEvent } from '@pels/shared/pels/feedback';
import type { RouterFeedback, RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';

/**
 * Where a router agent's eq. 11 samples enter the server: each becomes one
 * FeedbackEvent for every viewer behind that router (here: all viewers), on
 * the same controller path as the RTCP-derived feedback.
 */
export class RouterFeedbackHub {
  private latest: RouterFeedbackState | null = null;

  constructor(private readonly forEachViewer: (fn: (v: { onFeedback(ev: FeedbackEvent): void }) => void) => void) {}

  apply(fb: RouterFeedback, nowMs: number): void {
    this.latest = { ...fb, receivedAt: new Date(nowMs).toISOString() };
    const ev: FeedbackEvent = {
      kind: 'router',
      epoch: fb.epoch,
      lossFraction: fb.p,
      atMs: nowMs,
      origin: fb.routerId,
      // p describes the traffic of the last interval: MKC steps from the rate sent then.
      sentAtMs: nowMs - fb.intervalMs,
    };
    this.forEachViewer((v) => v.onFeedback(ev));
  }

  state(): RouterFeedbackState | null {
    return this.latest;
  }
}
