/**
 * Useless-packet transmission avoidance at the testbed's router: every
 * interval the agent reads each flow's bytes as they reach the router (an
 * nftables set keyed by protocol and destination port, counted before the
 * queues, so a flow being dropped still counts), estimates each flow's
 * arrival rate, computes the max-min fair share of the link among them (TCP
 * as elastic: it would take any bandwidth left), and
 * while a video flow's loss at that share would exceed its intelligibility
 * threshold, sends that flow's packets to a blackhole class instead of the
 * queues: they would arrive useless, and TCP gets the bandwidth.
 */
import { spawn } from 'node:child_process';
import { ArrivalRate, lossAtShare, maxMinShare, UselessFlowGate } from '@pels/shared/upta/upta';
import { BOTTLENECK_CLASSES } from './pelsBottleneck';
import { run } from './run';

export interface UptaAgentOptions {
  ns: string;
  dev: string;
  linkKbps: number;
  /** Video loss above which a video flow is unintelligible (0..1). */
  threshold: number;
  intervalMs: number;
  /** TCP source port of the flows that compete (the testbed's bulk transfers). */
  tcpPort: number;
}

/** One start or stop of dropping a video flow. */
export interface UptaChange {
  /** `udp:PORT`: the viewer's media port. */
  flow: string;
  /** From the origin `changesFrom` was given (the testbed: its run's start, the clock of its per-second figures). */
  atMs: number;
  dropping: boolean;
  rateKbps: number;
  shareKbps: number;
}

const TABLE = 'pels_upta';
/** Arrival-rate averaging, ms: a few intervals, so one late read does not swing the rate. */
const AVERAGING_MS = 300;

/** The nftables ruleset that counts the flows leaving through `dev`. Pure. */
export function uptaRuleset(dev: string, tcpPort: number): string {
  return `table inet ${TABLE} {
  set flows { type inet_proto . inet_service; flags dynamic; size 1024; counter; }
  chain count {
    type filter hook postrouting priority 0; policy accept;
    oifname "${dev}" meta l4proto udp update @flows { meta l4proto . th dport }
    oifname "${dev}" tcp sport ${tcpPort} update @flows { meta l4proto . th dport }
  }
}
`;
}

/** A flow still sending this little has ended (its estimate decays after its last packet), kb/s. */
const ACTIVE_KBPS = 8;

/**
 * What a flow would take of a fairly shared link: a TCP flow that is still
 * sending takes whatever it is left, so it counts as wanting the whole link
 * (its arrival rate behind a FIFO only shows what the video left it); a
 * video flow wants what it sends.
 */
export function demandKbps(flow: string, rateKbps: number): number {
  return flow.startsWith('tcp:') && rateKbps > ACTIVE_KBPS ? Number.POSITIVE_INFINITY : rateKbps;
}

/** `nft -j list set` output: bytes per `proto:port`. */
export function parseFlowCounters(json: string): Map<string, number> {
  const out = new Map<string, number>();
  type Elem = { elem?: { val?: { concat?: [string, number] }; counter?: { bytes: number } } };
  for (const item of (JSON.parse(json) as { nftables: Array<{ set?: { elem?: Elem[] } }> }).nftables) {
    for (const e of item.set?.elem ?? []) {
      const key = e.elem?.val?.concat;
      if (key && e.elem?.counter) out.set(`${key[0]}:${key[1]}`, e.elem.counter.bytes);
    }
  }
  return out;
}

export class UptaAgent {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private readonly rates = new Map<string, ArrivalRate>();
  private readonly gates = new Map<string, UselessFlowGate>();
  private prev = new Map<string, number>();
  private dropped = new Set<string>();
  /** Each change, timed by performance.now(). */
  private readonly changes: UptaChange[] = [];
  errors = 0;

  constructor(private readonly o: UptaAgentOptions) {}

  async start(): Promise<void> {
    await run('nft', ['delete', 'table', 'inet', TABLE], this.o.ns).catch(() => {});
    await this.nft(uptaRuleset(this.o.dev, this.o.tcpPort));
    this.timer = setInterval(() => void this.tick(), this.o.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.applyDrops(new Set()).catch(() => {});
    await run('nft', ['delete', 'table', 'inet', TABLE], this.o.ns).catch(() => {});
  }

  /** The starts and stops of dropping so far, timed from `originMs` (a performance.now() reading; earlier ones are negative). */
  changesFrom(originMs: number): UptaChange[] {
    return this.changes.map((c) => ({ ...c, atMs: Math.round(c.atMs - originMs) }));
  }

  /** Video flows being dropped now. */
  get droppingNow(): string[] {
    return [...this.dropped];
  }

  private async nft(ruleset: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('ip', ['netns', 'exec', this.o.ns, 'nft', '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`nft: ${err.trim()}`))));
      child.stdin.end(ruleset);
    });
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const cur = parseFlowCounters(await run('nft', ['-j', 'list', 'set', 'inet', TABLE, 'flows'], this.o.ns));
      const now = performance.now();
      for (const [flow, bytes] of cur) {
        let r = this.rates.get(flow);
        if (!r) this.rates.set(flow, (r = new ArrivalRate(AVERAGING_MS)));
        r.add(bytes - (this.prev.get(flow) ?? bytes), now);
      }
      this.prev = cur;
      const rates = new Map([...this.rates].map(([flow, r]) => [flow, r.at(now)]));
      const share = maxMinShare([...rates].map(([flow, rate]) => demandKbps(flow, rate)), this.o.linkKbps);
      const next = new Set<string>();
      for (const [flow, rate] of rates) {
        if (!flow.startsWith('udp:')) continue;
        let gate = this.gates.get(flow);
        if (!gate) this.gates.set(flow, (gate = new UselessFlowGate(this.o.threshold)));
        const was = gate.isDropping;
        if (gate.update(lossAtShare(rate, share), now)) next.add(flow);
        if (gate.isDropping !== was) this.changes.push({ flow, atMs: now, dropping: gate.isDropping, rateKbps: Math.round(rate), shareKbps: Math.round(share) });
      }
      await this.applyDrops(next);
    } catch {
      this.errors++;
    } finally {
      this.busy = false;
    }
  }

  /** One u32 filter per dropped flow, ahead of the color filters, into the blackhole class. */
  private async applyDrops(next: Set<string>): Promise<void> {
    if (next.size === this.dropped.size && [...next].every((f) => this.dropped.has(f))) return;
    const { ns, dev } = this.o;
    await run('tc', ['filter', 'del', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '2'], ns).catch(() => {});
    for (const flow of next) {
      const port = flow.slice('udp:'.length);
      await run('tc', ['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '2', 'u32', 'match', 'ip', 'protocol', '17', '0xff', 'match', 'ip', 'dport', port, '0xffff', 'flowid', BOTTLENECK_CLASSES.upta], ns);
    }
    this.dropped = next;
  }
}
