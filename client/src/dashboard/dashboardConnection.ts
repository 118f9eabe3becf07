/**
 * The dashboard's live feed: opens /ws/operator, says hello with the token,
 * hands each snapshot on. Reconnects with backoff after a drop; a refused
 * token stops it (retrying cannot fix that).
 */
import { backoffMs } from '@pels/shared/backoff';
import { DASHBOARD_CLOSE, DASHBOARD_WS_PATH, parseDashboardMessage, type DashboardRequest } from '@pels/shared/protocol/dashboard';
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';

export type FeedStatus = { state: 'connecting' } | { state: 'live' } | { state: 'retrying'; reason: string } | { state: 'unauthorized'; reason: string };

export interface FeedEvents {
  snapshot(s: OperatorSnapshot): void;
  status(s: FeedStatus): void;
}

/** The dashboard retries sooner than the player: an operator is watching it. */
const BACKOFF_MAX_MS = 5000;

export function dashboardUrl(loc: Pick<Location, 'protocol' | 'host'>): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}${DASHBOARD_WS_PATH}`;
}

export class DashboardConnection {
  private ws: WebSocket | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly events: FeedEvents,
  ) {
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.close();
    this.ws = null;
  }

  private open(): void {
    this.events.status({ state: 'connecting' });
    const ws = new WebSocket(this.url);
    this.ws = ws;
    let lastError = 'connection lost';
    let live = false;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', token: this.token } satisfies DashboardRequest));
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      const msg = parseDashboardMessage(ev.data);
      if (!msg.ok) {
        console.warn('dashboard feed:', msg.message);
        return;
      }
      if (msg.value.type === 'error') {
        lastError = msg.value.error.message;
        return;
      }
      if (!live) {
        live = true;
        this.failures = 0;
        this.events.status({ state: 'live' });
      }
      this.events.snapshot(msg.value.data);
    };
    ws.onclose = (ev) => {
      if (this.stopped || this.ws !== ws) return;
      this.ws = null;
      if (ev.code === DASHBOARD_CLOSE.unauthorized) return this.events.status({ state: 'unauthorized', reason: lastError });
      const delay = backoffMs(++this.failures, 500, BACKOFF_MAX_MS);
      this.events.status({ state: 'retrying', reason: lastError });
      this.retryTimer = setTimeout(() => this.open(), delay);
    };
  }
}
