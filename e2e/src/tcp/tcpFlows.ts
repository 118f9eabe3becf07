/**
 * Bulk TCP flows through the testbed's bottleneck: a sender in the server's
 * namespace, a receiver in the viewers' (bulkTcp.ts), so the data crosses the
 * router the way the video does. The kernel's congestion control of the
 * sender's namespace is read (or set) and reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { run } from '../net/run';
import type { Topology } from '../net/topology';

/** What bulkTcp.ts prints, one JSON object a line. */
export type BulkTcpLine =
  | { kind: 'ready' }
  | { kind: 'bytes'; atMs: number; bytes: number[] }
  | { kind: 'done'; flow: number; atMs: number; bytes: number; complete: boolean }
  | { kind: 'end' };

export type TcpQueue = 'internet' | 'shared';

export interface TcpOptions {
  flows: number;
  /** Bytes per flow; undefined: endless, closed after `seconds` or at the end of the run. */
  bytes: number | undefined;
  /** How long each flow lasts at most, s; undefined: until done or the run ends. */
  seconds: number | undefined;
  /** Seconds after the viewers start at which the flows start. */
  startS: number;
  /** Router queue the flows go through: the Internet queue, or the video's FIFO. */
  queue: TcpQueue;
  /** Congestion control to set in the sender's namespace; undefined: the kernel's default. */
  congestionControl: string | undefined;
}

export interface TcpFlowEnd {
  /** From the flows' start, s. */
  atS: number;
  bytes: number;
  /** All `bytes` arrived (a sized transfer that finished). */
  complete: boolean;
}

const SCRIPT = fileURLToPath(new URL('./bulkTcp.ts', import.meta.url));
/** The repository, where `--import tsx` resolves. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The sender's port: the router tells the flows apart by it. */
export const TCP_PORT = 5201;

function spawnIn(ns: string, args: string[]): ChildProcess {
  // `ip netns exec` execs node, so the child's pid is the script's.
  return spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}

function onLines(child: ChildProcess, f: (line: BulkTcpLine) => void): void {
  createInterface({ input: child.stdout! }).on('line', (l) => {
    try {
      f(JSON.parse(l) as BulkTcpLine);
    } catch {
      // not one of ours (a warning): ignore
    }
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
}

/** The running flows: their cumulative bytes now, their ends so far. */
export class TcpFlows {
  private latest: number[];
  readonly ends: (TcpFlowEnd | null)[];
  private constructor(
    readonly congestionControl: string,
    private readonly sender: ChildProcess,
    private readonly receiver: ChildProcess,
    flows: number,
  ) {
    this.latest = new Array<number>(flows).fill(0);
    this.ends = new Array<TcpFlowEnd | null>(flows).fill(null);
    onLines(receiver, (l) => {
      if (l.kind === 'bytes') this.latest = l.bytes;
      if (l.kind === 'done') this.ends[l.flow] = { atS: l.atMs / 1000, bytes: l.bytes, complete: l.complete };
    });
  }

  /** Starts the sender and waits for it to listen; then the receiver, whose connections start the flows. */
  static async start(topo: Topology, o: TcpOptions): Promise<TcpFlows> {
    if (o.congestionControl) await run('sysctl', ['-w', `net.ipv4.tcp_congestion_control=${o.congestionControl}`], topo.serverNs);
    // veth hands the queues 64 KB TSO/GSO super-packets, which HTB sends as one (half a second at 1 Mb/s)
    // and a pfifo counts as one packet: one segment per packet, as a real router would see them.
    await run('ip', ['link', 'set', 'dev', topo.bottleneckDev, 'gso_max_segs', '1', 'gso_max_size', '1500'], topo.serverNs);
    const cc = (await run('sysctl', ['-n', 'net.ipv4.tcp_congestion_control'], topo.serverNs)).trim();
    const size = o.bytes === undefined ? [] : ['--bytes', String(o.bytes)];
    const sender = spawnIn(topo.serverNs, ['send', '--port', String(TCP_PORT), ...size]);
    const ready = new Promise<void>((resolve, reject) => {
      onLines(sender, (l) => l.kind === 'ready' && resolve());
      sender.once('exit', (code) => reject(new Error(`TCP sender exited (${code}) before listening`)));
      setTimeout(() => reject(new Error('TCP sender did not listen within 10 s')), 10_000).unref();
    });
    try {
      await ready;
    } catch (err) {
      await stopChild(sender);
      throw err;
    }
    const duration = o.seconds === undefined ? [] : ['--seconds', String(o.seconds)];
    const receiver = spawnIn(topo.clientNs, ['receive', '--host', topo.serverIp, '--port', String(TCP_PORT), '--flows', String(o.flows), ...size, ...duration]);
    return new TcpFlows(cc, sender, receiver, o.flows);
  }

  /** Each flow's bytes received so far (at the receiver's last report, at most 250 ms old). */
  bytes(): number[] {
    return [...this.latest];
  }

  async stop(): Promise<void> {
    await stopChild(this.receiver);
    await stopChild(this.sender);
  }
}
