/**
 * The kernel's UDP counters of one network namespace (/proc/net/snmp is per
 * namespace): how many datagrams arrived for a socket whose receive buffer was
 * full, which is loss on the receiving host, after every router.
 */
import { run } from './run';

export interface UdpCounters {
  inDatagrams: number;
  /** Datagrams dropped because the socket's receive buffer was full (the reader too slow). */
  rcvbufErrors: number;
  /** Every datagram dropped on receipt (buffer full, bad checksum, ...). */
  inErrors: number;
}

/** Parses the `Udp:` header and value lines of /proc/net/snmp. */
export function parseUdpSnmp(text: string): UdpCounters {
  const lines = text.split('\n').filter((l) => l.startsWith('Udp:'));
  if (lines.length < 2) throw new Error('no Udp lines in /proc/net/snmp');
  const names = lines[0]!.split(/\s+/).slice(1);
  const values = lines[1]!.split(/\s+/).slice(1).map(Number);
  const get = (name: string): number => {
    const i = names.indexOf(name);
    if (i < 0 || !Number.isFinite(values[i])) throw new Error(`/proc/net/snmp has no Udp ${name}`);
    return values[i]!;
  };
  return { inDatagrams: get('InDatagrams'), rcvbufErrors: get('RcvbufErrors'), inErrors: get('InErrors') };
}

export async function readUdpCounters(ns: string): Promise<UdpCounters> {
  return parseUdpSnmp(await run('cat', ['/proc/net/snmp'], ns));
}

export const udpCountersSince = (a: UdpCounters, b: UdpCounters): UdpCounters => ({
  inDatagrams: b.inDatagrams - a.inDatagrams,
  rcvbufErrors: b.rcvbufErrors - a.rcvbufErrors,
  inErrors: b.inErrors - a.inErrors,
});
