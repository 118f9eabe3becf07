import { readFileSync, readdirSync } from 'node:fs';

export interface ProcessSample {
  ppid: number;
  name: string;
  /** User + system CPU seconds so far. */
  cpuSeconds: number;
  /** Resident memory, bytes. */
  rssBytes: number;
}

const PAGE_BYTES = 4096;

/** CPU seconds (user + system) and resident memory of each process, from /proc. */
export function snapshot(): Map<number, ProcessSample> {
  const ticks = 100; // USER_HZ on Linux
  const out = new Map<number, ProcessSample>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      out.set(Number(d), { ppid: Number(f[1]), name, cpuSeconds: (Number(f[11]) + Number(f[12])) / ticks, rssBytes: Number(f[21]) * PAGE_BYTES });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** A process's main thread's CPU seconds so far (user + system; its thread id is its pid); null: gone. */
export function mainThreadCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ
  } catch {
    return null;
  }
}

/** The seconds a thread spent runnable but waiting for a CPU, from its /proc schedstat line ("run_ns wait_ns slices"); null if unreadable. */
export function schedstatWaitSeconds(line: string): number | null {
  const f = line.trim().split(/\s+/);
  return f.length >= 2 && /^\d+$/.test(f[1]!) ? Number(f[1]) / 1e9 : null;
}

/** A process's threads' time waiting for a CPU so far, in seconds (the kernel's run-queue delay); null: gone or not kept. */
export function runQueueWaitSeconds(pid: number): number | null {
  try {
    let total = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      total += schedstatWaitSeconds(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')) ?? 0;
    }
    return total;
  } catch {
    return null;
  }
}

/** root and every process below it that is still in the snapshot. */
export function descendants(snap: ReturnType<typeof snapshot>, root: number): number[] {
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, p] of snap) if (p.ppid === found[i]) found.push(pid);
  return found.filter((p) => snap.has(p));
}

/**
 * Measures the CPU use (percent of one core) of process trees, by process
 * name, over an interval. A process counts in the first group whose tree holds
 * it, so a later root may be an ancestor of an earlier one.
 */
export class TreeCpu {
  private start = snapshot();
  private startAt = process.hrtime.bigint();

  constructor(private readonly roots: Record<string, number>) {}

  reset(): void {
    this.start = snapshot();
    this.startAt = process.hrtime.bigint();
  }

  /** { group: { processName: percentOfOneCore } } */
  read(): Record<string, Record<string, number>> {
    const now = snapshot();
    const seconds = Number(process.hrtime.bigint() - this.startAt) / 1e9;
    const out: Record<string, Record<string, number>> = {};
    const counted = new Set<number>();
    for (const [group, root] of Object.entries(this.roots)) {
      const g: Record<string, number> = {};
      for (const pid of descendants(now, root)) {
        if (counted.has(pid) || pid === process.pid) continue;
        counted.add(pid);
        const p = now.get(pid)!;
        const used = p.cpuSeconds - (this.start.get(pid)?.cpuSeconds ?? 0);
        g[p.name] = Math.round(((g[p.name] ?? 0) + (100 * used) / seconds) * 10) / 10;
      }
      out[group] = g;
    }
    return out;
  }
}
