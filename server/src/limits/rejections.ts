/** The limits the server enforces, as named in /metrics. */
export const LIMIT_NAMES = [
  'viewers',
  'viewers_per_stream',
  'viewers_per_address',
  'sockets_per_address',
  'dashboard_sockets_per_address',
  'foreign_origin',
  'pending_requests',
  'dtls_timeout',
  'send_buffer',
  'turn_credentials',
  'auth_failures',
  'place_requests',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Refusals so far, by limit, for /metrics. */
export class LimitRejections {
  private readonly counts = new Map<LimitName, number>(LIMIT_NAMES.map((n) => [n, 0]));
  /** Notifications a slow player did not get (its send buffer was over half full). */
  notificationsDropped = 0;

  add(limit: LimitName): void {
    this.counts.set(limit, this.count(limit) + 1);
  }

  count(limit: LimitName): number {
    return this.counts.get(limit) ?? 0;
  }
}
