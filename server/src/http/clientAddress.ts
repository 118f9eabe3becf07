/**
 * The address a request comes from. Behind a reverse proxy every request
 * comes from the proxy: only from the peers listed in TRUSTED_PROXIES is
 * `X-Forwarded-For` believed, and then its rightmost address that is not
 * itself a trusted proxy (a client can write any address at the left of the
 * list; each trusted proxy appends the peer it saw).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** Addresses and CIDR blocks, e.g. ["10.0.0.0/8", "::1"]; throws naming a bad entry. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [ip = '', bits, ...more] = entry.split('/');
      const family = isIP(ip);
      const prefix = bits === undefined ? undefined : Number(bits);
      if (!family || more.length || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128)))) {
        throw new Error(`"${entry}" is not an IP address or CIDR block (e.g. 10.0.0.0/8, 2001:db8::/32)`);
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.list.addAddress(ip, type);
      else this.list.addSubnet(ip, prefix, type);
    }
    this.empty = entries.length === 0;
  }

  has(address: string): boolean {
    const ip = unmapped(address);
    const family = isIP(ip);
    return family !== 0 && this.list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** TRUSTED_PROXIES: addresses and CIDR blocks separated by commas; empty: none. */
export function parseTrustedProxies(text: string | undefined): TrustedProxies {
  return new TrustedProxies((text ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}

/** The client's address: the socket's peer, or behind trusted proxies the rightmost untrusted X-Forwarded-For entry. */
export function clientAddress(req: IncomingMessage, trusted: TrustedProxies): string | undefined {
  const peer = req.socket.remoteAddress;
  if (peer === undefined || trusted.empty || !trusted.has(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = unmapped(hops[i]!);
    // Garbage is not an address: the proxy's own peer is the best known then.
    if (!isIP(hop)) return peer;
    if (!trusted.has(hop)) return hop;
  }
  // Every hop is a trusted proxy: the leftmost is the client as far as anyone knows.
  return hops.length ? unmapped(hops[0]!) : peer;
}

function unmapped(address: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}
