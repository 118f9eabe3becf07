/**
 * Times the requests node makes of one media worker (a join's transports,
 * consumers and resumes; the viewers' stats polls). Every request and every
 * packet share the worker's one channel, so a request that waits is told
 * apart by what was ahead of it: when one has waited SLOW_REQUEST_MS, the
 * channel socket's backlog (bytes node holds that the worker has not read)
 * and the requests still waiting are logged, once when it passes the mark
 * and once with its answer.
 */
import { errors as msErrors } from 'mediasoup';
import { RequestError } from '../errors';
import type { Logger } from '../log';

export const SLOW_REQUEST_MS = 1000;

export interface WorkerRequestsState {
  /** Requests sent through this and not answered yet. */
  pending: number;
  /** The channel socket's `writableLength`, null while no worker runs. */
  channelBacklogBytes: number | null;
}

export class WorkerRequests {
  private pending = 0;

  constructor(
    private readonly log: Logger,
    /** The channel socket's backlog now, null while no worker runs. */
    private readonly backlog: () => number | null,
    private readonly slowMs = SLOW_REQUEST_MS,
  ) {}

  get state(): WorkerRequestsState {
    return { pending: this.pending, channelBacklogBytes: this.backlog() };
  }

  /**
   * `request()`'s answer; `what` names it in the log should it be slow. A worker that died
   * meanwhile (its channel closed) or lost the object asked about (closed under the request)
   * is the player's cue to try again, not the server's fault: `unavailable`.
   */
  async timed<T>(what: string, request: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    this.pending++;
    // The timer's own lateness is node's event loop falling behind, not the worker.
    const slow = setTimeout(() => {
      const waitedMs = Date.now() - startedAt;
      this.log.warn({ request: what, waitedMs, eventLoopLateMs: waitedMs - this.slowMs, ...this.state }, 'a media worker request has waited over 1 s');
    }, this.slowMs);
    try {
      return await request();
    } catch (err) {
      if (err instanceof msErrors.WorkerClosedError || err instanceof msErrors.NotFoundError) {
        throw new RequestError('unavailable', `the media worker restarted or closed what ${what} needed, try again`);
      }
      throw err;
    } finally {
      clearTimeout(slow);
      this.pending--;
      const tookMs = Date.now() - startedAt;
      if (tookMs >= this.slowMs) this.log.warn({ request: what, tookMs, ...this.state }, 'a slow media worker request was answered');
    }
  }
}
