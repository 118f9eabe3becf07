import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { refuseUpgrade, type UpgradeHandler } from '../http/httpServer';
import type { LimitName, LimitRejections } from './rejections';

/** What a WebSocket is for: a player's signaling or a dashboard's feed. */
export const SOCKET_KINDS = ['signaling', 'dashboard'] as const;
export type SocketKind = (typeof SOCKET_KINDS)[number];

/** A refused client may try again this much later; places free up as other sockets close. */
const RETRY_AFTER_S = 10;

/**
 * The unit a client is counted by: its IPv4 address, or its IPv6 /64 (the
 * block one subscriber is usually given, so changing addresses within it
 * does not get around the limit).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const ip = address.split('%')[0]!; // a link-local zone names the interface, not the client
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [left = '', right] = ip.split('::');
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = right === undefined ? head : [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

const REJECTION: Record<SocketKind, LimitName> = { signaling: 'sockets_per_address', dashboard: 'dashboard_sockets_per_address' };

/**
 * WebSockets (the players' signaling and the dashboards' feed) per client
 * address, each kind counted apart: players from one address cannot take the
 * operator's dashboard places. A socket holds its place from the upgrade
 * until its connection closes, whatever closes it.
 */
export class SocketsPerAddress {
  private readonly byAddress = new Map<string, number>();
  private readonly byKind: Record<SocketKind, number> = { signaling: 0, dashboard: 0 };

  constructor(
    private readonly max: Readonly<Record<SocketKind, number>>,
    private readonly rejections: LimitRejections,
  ) {}

  /** Sockets open now, by kind (for /metrics). */
  open(): Readonly<Record<SocketKind, number>> {
    return this.byKind;
  }

  /** Takes a place for one more socket from this address; null past the limit. Returns the release (safe to call twice). */
  take(address: string | undefined, kind: SocketKind): (() => void) | null {
    const key = `${kind} ${addressKey(address)}`;
    const n = this.byAddress.get(key) ?? 0;
    if (n >= this.max[kind]) {
      this.rejections.add(REJECTION[kind]);
      return null;
    }
    this.byAddress.set(key, n + 1);
    this.byKind[kind]++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.byAddress.get(key) ?? 1) - 1;
      if (left) this.byAddress.set(key, left);
      else this.byAddress.delete(key);
      this.byKind[kind]--;
    };
  }

  /**
   * Wraps an upgrade handler: past the limit the request gets 429 with
   * Retry-After before any WebSocket is made, and its connection is closed.
   */
  guard(kind: SocketKind, handler: UpgradeHandler, addressOf: (req: IncomingMessage) => string | undefined = (req) => req.socket.remoteAddress): UpgradeHandler {
    return (req, socket, head) => {
      const release = this.take(addressOf(req), kind);
      if (!release) {
        return refuseUpgrade(socket, 429, {
          headers: { 'retry-after': String(RETRY_AFTER_S) },
          error: { code: 'unavailable', message: `at most ${this.max[kind]} ${kind} connections from one address, try again later` },
        });
      }
      socket.once('close', release);
      handler(req, socket, head);
    };
  }
}
