/**
 * What a server process holds, read from outside it: open file descriptors and
 * resident memory from /proc, its child processes by parent pid, and the
 * mediasoup transports and DSCP-marked SSRCs from its /metrics. The
 * robustness suite compares these against a baseline after each fault.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { get } from 'node:http';
import { serverDscpTables } from './dscpTables';

export interface ProcessResources {
  fds: number;
  rssKiB: number;
  /** Command names of the direct children, sorted (e.g. ffmpeg, mediasoup-worke). */
  children: string[];
  transports: number;
  consumers: number;
  /** As the server counts them (its gauge), and as the kernel holds them (its nftables map; 0 without root). */
  dscpMarkedSsrcs: number;
  nftMapElements: number;
}

function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * Descriptors of the process that are TCP connections accepted on `port` (its HTTP port): requests come and go
 * (a cluster's placements, a client's idle keep-alive), and are not what it holds for long.
 */
export function httpConnectionFds(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // no IPv6
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address "ADDR:PORT" in hex, state 0A is LISTEN, the inode is the tenth field.
      if (f.length > 9 && parseInt(f[1]!.split(':')[1]!, 16) === port && f[3] !== '0A') inodes.add(f[9]!);
    }
  }
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1]!)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

function rssKiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]);
}

/** Direct children of pid, as [pid, command name, arguments, state (R, S, Z: exited, not reaped...)]. */
export function childProcesses(pid: number): Array<[number, string, string[], string]> {
  const out: Array<[number, string, string[], string]> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while listed
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after its last ')'.
    const close = stat.lastIndexOf(')');
    const [state, ppidText] = stat.slice(close + 2).split(' ');
    const ppid = Number(ppidText);
    if (ppid !== pid) continue;
    let args: string[] = [];
    try {
      args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      // exited while listed
    }
    out.push([Number(name), stat.slice(stat.indexOf('(') + 1, close), args, state!]);
  }
  return out;
}

/** The value of an unlabelled metric in Prometheus' text format; 0 when absent. */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} ([0-9.eE+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * A GET on a connection of its own, closed after the answer: a kept-alive
 * connection would count among the server's open descriptors.
 */
export function getOnce(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, headers: { ...headers, connection: 'close' }, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
  });
}

/** `ns`: the network namespace the server runs in, where its nftables rules are. */
export async function readResources(pid: number, port: number, serverUrl: string, token: string, ns?: string): Promise<ProcessResources> {
  const res = await getOnce(`${serverUrl}/metrics`, { authorization: `Bearer ${token}` });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const metrics = res.body;
  return {
    fds: fdCount(pid),
    rssKiB: rssKiB(pid),
    children: childProcesses(pid)
      .map(([, comm]) => comm)
      // The TypeScript loader's compiler service of a server run from source, not the product's.
      .filter((comm) => comm !== 'esbuild')
      .sort(),
    transports: metricValue(metrics, 'pels_mediasoup_transports'),
    consumers: metricValue(metrics, 'pels_mediasoup_consumers'),
    dscpMarkedSsrcs: metricValue(metrics, 'pels_dscp_marked_ssrcs'),
    nftMapElements: process.getuid?.() === 0 ? serverDscpTables(port, pid, ns).reduce((n, t) => n + t.marks.size, 0) : 0,
  };
}
