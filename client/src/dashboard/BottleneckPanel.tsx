/** The router agent's latest eq. 11 sample, when a PELS router reports (the testbed's, or the compose router). */
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import { fixed, since } from './format';

export function BottleneckPanel({ router, nowMs }: { router: OperatorSnapshot['router']; nowMs: number }) {
  const r = router.latest;
  return (
    <section className="panel" data-testid="bottleneck">
      <h2>Bottleneck</h2>
      {r ? (
        <dl className="facts">
          <dt>p = (R − C) / R</dt>
          <dd>{fixed(r.p, 3)}</dd>
          <dt>offered</dt>
          <dd>{fixed(r.offeredKbps, 0)} kb/s</dd>
          <dt>capacity</dt>
          <dd>{fixed(r.capacityKbps, 0)} kb/s</dd>
          <dt>sample</dt>
          <dd>
            epoch {r.epoch}, {since(Date.parse(r.receivedAt), nowMs)} ago
          </dd>
          <dt>controllers step on</dt>
          <dd>{router.feedback === 'router' ? 'router feedback' : 'RTCP (router feedback shown only)'}</dd>
        </dl>
      ) : (
        <p className="hint">No router agent reports (controllers step on {router.feedback === 'router' ? 'router feedback' : 'RTCP receiver reports'}).</p>
      )}
    </section>
  );
}
