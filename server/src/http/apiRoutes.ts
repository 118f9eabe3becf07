import { routerFeedbackSchema } from '@pels/shared/protocol/routerFeedback';
import type { FeedbackSource } from '../config';
import { RequestError } from '../errors';
import type { BottleneckFeedbackHub } from '../feedback/bottleneckFeedbackHub';
import type { OperatorAuth } from '../operator/operatorAuth';
import type { StreamRegistry } from '../streams/streamRegistry';
import { readJson, type Route } from './httpServer';

export interface ApiDeps {
  streams: StreamRegistry;
  router: BottleneckFeedbackHub;
  feedback: FeedbackSource;
  /** /api/health answers 503 until the server can serve viewers. */
  isReady: () => boolean;
  /** Viewer state is the operator's (operator token); router feedback the router agent's (ROUTER_TOKEN, or the operator token). */
  auth: OperatorAuth;
}

export function apiRoutes(d: ApiDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/health',
      handler: () => {
        if (!d.isReady()) throw new RequestError('unavailable', 'starting');
        return { ok: true };
      },
    },
    { method: 'GET', path: '/api/streams', handler: () => ({ streams: d.streams.publicList() }) },
    ...d.auth.guard([
      { method: 'GET', path: '/api/viewers', handler: () => ({ viewers: d.streams.viewers() }) },
      { method: 'GET', path: '/api/router', handler: () => ({ feedback: d.feedback, router: d.router.state() }) },
    ]),
    ...d.auth.guard(
      [
        {
          method: 'POST',
          path: '/api/router-feedback',
          handler: async (req) => {
            const parsed = routerFeedbackSchema.safeParse(await readJson(req));
            if (!parsed.success) {
              const issue = parsed.error.issues[0];
              throw new RequestError('bad_request', `invalid router feedback at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
            }
            if (d.feedback !== 'router') throw new RequestError('invalid_state', 'the server runs with FEEDBACK=rtcp; start it with FEEDBACK=router to use router feedback');
            d.router.apply(parsed.data, Date.now());
            return { ok: true };
          },
        },
      ],
      'router',
    ),
  ];
}
