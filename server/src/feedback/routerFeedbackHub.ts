import type { RouterFeedbackInput } from '@pels/shared/control/input';
import { RouterFeedbackPool } from '@pels/shared/pels/routerFeedbackPool';
import type { RouterFeedback, RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';

/**
 * Where a router agent's eq. 11 samples enter the server: each router's
 * samples are pooled over a window (RouterFeedbackPool: a short T measures
 * frame bursts, not rates), and each pooled sample becomes one input of the
 * control core of every viewer behind that router (here: all viewers),
 * beside the RTCP receiver reports.
 */
export class RouterFeedbackHub {
  private latest: RouterFeedbackState | null = null;
  private readonly pools = new Map<string, RouterFeedbackPool>();

  constructor(private readonly forEachViewer: (fn: (v: { onRouterFeedback(input: RouterFeedbackInput): void }) => void) => void) {}

  apply(fb: RouterFeedback, nowMs: number): void {
    this.latest = { ...fb, receivedAt: new Date(nowMs).toISOString() };
    let pool = this.pools.get(fb.routerId);
    if (!pool) this.pools.set(fb.routerId, (pool = new RouterFeedbackPool()));
    const pooled = pool.add(fb);
    if (!pooled) return;
    const input: RouterFeedbackInput = {
      kind: 'router-feedback',
      epoch: pooled.epoch,
      lossFraction: pooled.p,
      atMs: nowMs,
      origin: fb.routerId,
      // p describes the traffic of the pooled interval: MKC steps from the rate sent at its start.
      sentAtMs: nowMs - pooled.intervalMs,
    };
    this.forEachViewer((v) => v.onRouterFeedback(input));
  }

  state(): RouterFeedbackState | null {
    return this.latest;
  }
}
