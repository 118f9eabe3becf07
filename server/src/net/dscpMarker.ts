/**
 * Marks the DSCP of each viewer's color streams so the bottleneck can tell the
 * colors apart (see DESIGN.md "Why three RTP streams per viewer"). mediasoup
 * cannot set DSCP per packet, so the kernel does it: one nftables rule per SSRC
 * in the output hook. The rules live in one table per server instance,
 * `inet pels_<instance>`; tc classifies on egress, after netfilter, so it sees
 * the mark whatever the chain priority.
 */
import { spawn } from 'node:child_process';
import type { DscpStatus } from '@pels/shared/protocol/api';
import type { Logger } from '../log';

export type { DscpStatus };

export interface DscpMarking {
  /** Idempotent; never throws. */
  remove(): Promise<void>;
}

export interface DscpMarker {
  /** The outcome of the latest nftables change (read it right after mark()). */
  readonly status: DscpStatus;
  /** Adds one rule per SSRC; never throws (on failure logs, returns a no-op marking and updates status). */
  mark(rules: { ssrc: number; dscp: number }[]): Promise<DscpMarking>;
  /** Removes everything this marker created (the whole table). Idempotent. */
  close(): Promise<void>;
}

const NOOP: DscpMarking = { remove: async () => {} };
const NFT_TIMEOUT_MS = 10_000;

export async function createDscpMarker(opts: {
  instance: string;
  udpPorts: { min: number; max: number };
  log: Logger;
  nftPath?: string;
}): Promise<DscpMarker> {
  const table = `inet pels_${opts.instance.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 64)}`;
  const log = opts.log.child({ nftTable: table });
  const nft = new NftQueue(opts.nftPath ?? 'nft');
  // Declaring the table before deleting it makes the delete succeed whether or
  // not a crashed earlier run left it; one batch is one transaction, so there
  // is never a moment with a half-built table.
  const dropTable = `table ${table}\ndelete table ${table}\n`;
  try {
    await nft.run([], `${dropTable}table ${table} {\n  chain output {\n    type filter hook output priority mangle; policy accept;\n  }\n}\n`);
  } catch (e) {
    const reason = describe(e);
    log.warn({ reason }, 'DSCP marking disabled');
    return { status: { enabled: false, reason }, mark: async () => NOOP, close: async () => {} };
  }
  return new NftDscpMarker(nft, table, dropTable, opts.udpPorts, log);
}

class NftDscpMarker implements DscpMarker {
  private current: DscpStatus = { enabled: true };
  private closed = false;

  constructor(
    private readonly nft: NftQueue,
    private readonly table: string,
    private readonly dropTable: string,
    private readonly ports: { min: number; max: number },
    private readonly log: Logger,
  ) {}

  get status(): DscpStatus {
    return this.current;
  }

  async mark(rules: { ssrc: number; dscp: number }[]): Promise<DscpMarking> {
    if (this.closed || rules.length === 0) return NOOP;
    try {
      const bad = rules.find((r) => !isUint(r.ssrc, 0xffffffff) || !isUint(r.dscp, 63));
      if (bad) throw new Error(`invalid rule ${JSON.stringify(bad)}`);
      const { min, max } = this.ports;
      const lines = rules.flatMap(({ ssrc, dscp }) =>
        (['ip', 'ip6'] as const).map(
          // The RTP match: source port in mediasoup's RTC range, RTP version 2,
          // not RTCP (RFC 5761: second byte 192..223; RTCP carries the media
          // SSRC at the same offset in report blocks), SSRC at payload offset 8,
          // i.e. bit 128 of the transport header. `ip dscp set` in an inet table
          // gets an implicit `meta nfproto ipv4` match (ip6 likewise).
          (family) =>
            `add rule ${this.table} output udp sport ${min}-${max} @th,64,2 2 @th,72,8 != 192-223 @th,128,32 ${ssrc} ${family} dscp set ${dscp} comment "ssrc ${ssrc}"`,
        ),
      );
      // --echo --handle prints each added rule with its handle, in batch order.
      const out = await this.nft.run(['--echo', '--handle'], lines.join('\n') + '\n');
      const handles = [...out.matchAll(/^add rule .*# handle (\d+)$/gm)].map((m) => Number(m[1]));
      if (handles.length !== lines.length) throw new Error(`expected ${lines.length} rule handles from nft --echo, got: ${out.trim()}`);
      this.current = { enabled: true };
      this.log.debug({ rules, handles }, 'DSCP rules added');
      return this.marking(handles);
    } catch (e) {
      const reason = describe(e);
      this.current = { enabled: false, reason };
      this.log.warn({ reason, rules }, 'DSCP marking failed');
      return NOOP;
    }
  }

  private marking(handles: number[]): DscpMarking {
    let removed = false;
    return {
      remove: async () => {
        // After close() the table, and so these rules, are already gone.
        if (removed || this.closed) return;
        removed = true;
        try {
          await this.nft.run([], handles.map((h) => `delete rule ${this.table} output handle ${h}\n`).join(''));
        } catch (e) {
          this.log.warn({ reason: describe(e), handles }, 'removing DSCP rules failed');
        }
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.nft.run([], this.dropTable);
    } catch (e) {
      this.log.warn({ reason: describe(e) }, 'deleting the DSCP table failed');
    }
  }
}

/** Runs `nft <args> -f -` one at a time, so concurrent viewers' batches do not interleave. */
class NftQueue {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly path: string) {}

  run(args: string[], script: string): Promise<string> {
    const next = this.tail.then(() => this.exec(args, script));
    this.tail = next.catch(() => {});
    return next;
  }

  private exec(args: string[], script: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const proc = spawn(this.path, [...args, '-f', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => proc.kill('SIGKILL'), NFT_TIMEOUT_MS);
      proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      proc.stdin.on('error', () => {}); // EPIPE when nft is missing or exits early: reported below
      proc.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(e.code === 'ENOENT' ? `nft not found at ${this.path} — install nftables to mark DSCP` : `cannot run ${this.path}: ${e.message}`));
      });
      proc.once('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else reject(new Error(firstError(stderr) ?? `nft exited with ${signal ?? code}`));
      });
      proc.stdin.end(script);
    });
  }
}

/** The line of nft's stderr that says what went wrong. */
function firstError(stderr: string): string | undefined {
  if (/Operation not permitted|Permission denied/.test(stderr)) {
    return 'Operation not permitted — run the server as root or with CAP_NET_ADMIN to mark DSCP';
  }
  const line = stderr.split('\n').find((l) => l.includes('Error:')) ?? stderr.split('\n').find((l) => l.trim() !== '');
  return line?.replace(/^.*?Error: /, '').trim();
}

function describe(e: unknown): string {
  return `nftables: ${e instanceof Error ? e.message : String(e)}`;
}

function isUint(v: number, max: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= max;
}
