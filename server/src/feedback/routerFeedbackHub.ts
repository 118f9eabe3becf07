import type { RouterFeedbackInput } from '@pels/shared/control/input';
import type { RouterFeedback, RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';

/**
 * Where a router agent's eq. 11 samples enter the server: each becomes one
 * input of the control core of every viewer behind that router (here: all
 * viewers), beside the RTCP receiver reports.
 */
export class RouterFeedbackHub {
  private latest: RouterFeedbackState | null = null;

  constructor(private readonly forEachViewer: (fn: (v: { onRouterFeedback(input: RouterFeedbackInput): void }) => void) => void) {}

  apply(fb: RouterFeedback, nowMs: number): void {
    this.latest = { ...fb, receivedAt: new Date(nowMs).toISOString() };
    const input: RouterFeedbackInput = {
      kind: 'router-feedback',
      epoch: fb.epoch,
      lossFraction: fb.p,
      atMs: nowMs,
      origin: fb.routerId,
      // p describes the traffic of the last interval: MKC steps from the rate sent then.
      sentAtMs: nowMs - fb.intervalMs,
    };
    this.forEachViewer((v) => v.onRouterFeedback(input));
  }

  state(): RouterFeedbackState | null {
    return this.latest;
  }
}
