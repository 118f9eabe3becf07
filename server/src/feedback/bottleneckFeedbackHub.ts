import type { BottleneckFeedbackInput } from '@pels/shared/control/input';
import { BottleneckFeedbackPool } from '@pels/shared/pels/bottleneckFeedbackPool';
import type { RouterFeedback, RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';

/**
 * Where a router agent's eq. 11 samples enter the server: each router's
 * samples are pooled over a window (BottleneckFeedbackPool: a short T measures
 * frame bursts, not rates), and each pooled sample becomes one input of the
 * control core of every viewer behind that router (here: all viewers),
 * beside the RTCP receiver reports.
 */
export class BottleneckFeedbackHub {
  private latest: RouterFeedbackState | null = null;
  private readonly pools = new Map<string, BottleneckFeedbackPool>();

  constructor(private readonly forEachViewer: (fn: (v: { onRouterFeedback(input: BottleneckFeedbackInput): void }) => void) => void) {}

  apply(fb: RouterFeedback, nowMs: number): void {
    this.latest = { ...fb, receivedAt: new Date(nowMs).toISOString() };
    let pool = this.pools.get(fb.routerId);
    if (!pool) this.pools.set(fb.routerId, (pool = new BottleneckFeedbackPool()));
    const pooled = pool.add(fb);
    if (!pooled) return;
    const input: BottleneckFeedbackInput = {
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
