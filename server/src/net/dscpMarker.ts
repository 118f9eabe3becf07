/**
 * Marks the DSCP of each viewer's color streams so the bottleneck can tell the
 * colors apart. mediasoup cannot set DSCP per packet, so the kernel does it:
 * nftables looks each RTP packet's SSRC up in a map (layout in dscpTable.ts).
 * Changes requested while nft runs, or in the same tick, go to the kernel
 * together: one `nft` process, one transaction, started by a shell of the
 * marker's own (NftShell), not by node.
 */
import type { DscpStatus } from '@pels/shared/protocol/api';
import type { Logger } from '../log';
import { changeElements, createTable, dropTable, ownerPid, tableOf } from './dscpTable';
import { describeNftError, runNft } from './nft';
import { NftShell } from './nftShell';
import { SsrcMarks, type SsrcDscp } from './ssrcMarks';

export type { DscpStatus };

export interface DscpMarking {
  /** Idempotent; never throws. */
  remove(): Promise<void>;
}

export interface DscpMarker {
  /** Whether nftables is in use at all: false, for the server's life, when it could not be set up at start (status says why). */
  readonly available: boolean;
  /** The outcome of the latest nftables change (read it right after mark()). */
  readonly status: DscpStatus;
  /** SSRCs marked in the kernel now. */
  readonly markedSsrcs: number;
  /**
   * Marks each SSRC with its DSCP, or drops its packets; a later marking of an SSRC
   * wins until it is removed, a drop wins over any (see SsrcMarks). Never throws:
   * on failure logs, returns a no-op marking and updates status.
   */
  mark(rules: SsrcDscp[]): Promise<DscpMarking>;
  /** Removes everything this marker created (the whole table). Idempotent. */
  close(): Promise<void>;
}

const NOOP: DscpMarking = { remove: async () => {} };

export async function createDscpMarker(opts: {
  instance: string;
  udpPorts: { min: number; max: number };
  log: Logger;
  nftPath?: string;
}): Promise<DscpMarker> {
  const table = tableOf(opts.instance, process.pid);
  const log = opts.log.child({ nftTable: table });
  const nft = opts.nftPath ?? 'nft';
  try {
    const stale = staleTables(await runNft(nft, ['-j', 'list', 'tables']));
    // One transaction: there is never a moment with a half-built table.
    await runNft(nft, [], stale.map(dropTable).join('') + createTable(table, opts.udpPorts));
    if (stale.length) log.info({ stale }, 'removed the DSCP tables of server instances no longer running');
  } catch (e) {
    const reason = describeNftError(e);
    log.warn({ reason }, 'DSCP marking disabled');
    return { available: false, status: { enabled: false, reason }, markedSsrcs: 0, mark: async () => NOOP, close: async () => {} };
  }
  return new NftDscpMarker(new NftShell(nft), table, log);
}

/** Tables of server instances whose process is gone (a crash or kill -9 leaves them). */
function staleTables(listJson: string): string[] {
  const doc = JSON.parse(listJson) as { nftables: { table?: { family: string; name: string } }[] };
  return doc.nftables.flatMap(({ table }) => {
    const pid = table?.family === 'inet' ? ownerPid(table.name) : undefined;
    return pid !== undefined && !isRunning(pid) ? [`inet ${table!.name}`] : [];
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class NftDscpMarker implements DscpMarker {
  readonly available = true;
  private current: DscpStatus = { enabled: true };
  private closed = false;
  private readonly marks = new SsrcMarks();
  /** DSCP values whose chain exists. */
  private readonly chains = new Set<number>();
  /** The batch that has not started yet: changes made now join it. */
  private queued: Promise<void> | null = null;
  /** Settles when the latest batch has. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly nft: NftShell,
    private readonly table: string,
    private readonly log: Logger,
  ) {}

  get status(): DscpStatus {
    return this.current;
  }

  get markedSsrcs(): number {
    return this.marks.size;
  }

  async mark(rules: SsrcDscp[]): Promise<DscpMarking> {
    if (this.closed || rules.length === 0) return NOOP;
    const owner = {};
    try {
      const bad = rules.find((r) => !isUint(r.ssrc, 0xffffffff) || (r.dscp !== 'drop' && !isUint(r.dscp, 63)));
      if (bad) throw new Error(`invalid rule ${JSON.stringify(bad)}`);
      this.marks.add(owner, rules);
      await this.flush();
      this.current = { enabled: true };
      this.log.debug({ rules }, 'DSCP marked');
      return this.marking(owner);
    } catch (e) {
      this.marks.remove(owner);
      const reason = describeNftError(e);
      this.current = { enabled: false, reason };
      this.log.warn({ reason, rules }, 'DSCP marking failed');
      return NOOP;
    }
  }

  private marking(owner: object): DscpMarking {
    let removed = false;
    return {
      remove: async () => {
        // After close() the table, and so these elements, are already gone.
        if (removed || this.closed) return;
        removed = true;
        this.marks.remove(owner);
        try {
          await this.flush();
        } catch (e) {
          // The next change rewrites the whole map, without these.
          this.log.warn({ reason: describeNftError(e) }, 'removing DSCP marks failed');
        }
      },
    };
  }

  /** Resolves when a batch holding every change made so far is in the kernel. */
  private flush(): Promise<void> {
    if (!this.queued) {
      // Started on the next turn of the event loop, after the running batch: changes made until then join it.
      const batch = this.tail.then(() => new Promise((r) => setImmediate(r))).then(() => {
        this.queued = null;
        return this.apply();
      });
      this.queued = batch;
      this.tail = batch.catch(() => {});
    }
    return this.queued;
  }

  private async apply(): Promise<void> {
    if (this.closed) return;
    const changes = this.marks.takeChanges();
    const newDscps = [...new Set(changes.add.flatMap((e) => (e.dscp === 'drop' ? [] : [e.dscp])))].filter((n) => !this.chains.has(n));
    const script = changeElements(this.table, changes, newDscps);
    if (!script) return;
    try {
      await this.nft.run(script);
    } catch (e) {
      this.marks.failed();
      // nft may have been killed after the kernel took the batch: create the chains again next time.
      this.chains.clear();
      throw e;
    }
    this.marks.committed(changes);
    for (const n of newDscps) this.chains.add(n);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A batch running now would otherwise land after the table is gone (and fail, or recreate nothing).
    await this.tail;
    this.marks.clear();
    try {
      await this.nft.run(dropTable(this.table));
    } catch (e) {
      this.log.warn({ reason: describeNftError(e) }, 'deleting the DSCP table failed');
    }
    this.nft.close();
  }
}

function isUint(v: number, max: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= max;
}
