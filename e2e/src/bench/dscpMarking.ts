/**
 * DSCP marking benchmark (root, real nft): with N viewers marked, the time of
 * one more viewer's mark() + remove() and the nft runs it takes; also N
 * viewers joining and leaving at once, and the rules in the table. Optionally
 * side by side with the marker of an earlier commit (`--baseline REF`, read
 * from this repository's git history).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { createDscpMarker } from '../../../server/src/net/dscpMarker';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PORTS = { min: 40000, max: 49999 };
const COLOR_DSCPS = [34, 36, 38];

/** What every version of the marker offers. */
type CreateMarker = (o: { instance: string; udpPorts: { min: number; max: number }; log: Logger; nftPath?: string }) => Promise<{
  mark(rules: { ssrc: number; dscp: number }[]): Promise<{ remove(): Promise<void> }>;
  close(): Promise<void>;
}>;

export interface DscpRow {
  marker: string;
  viewers: number;
  /** N viewers marking at once: ms until all are marked, and nft runs. */
  joinMs: number;
  joinRuns: number;
  /** One more viewer's mark() + remove() with N marked: median ms over the rounds, nft runs per round. */
  markRemoveMs: number;
  markRemoveRuns: number;
  /** Rules in the marker's table with N viewers marked. */
  rules: number;
  /** N viewers leaving at once. */
  leaveMs: number;
  leaveRuns: number;
}

/** The marker of commit `ref`, extracted from git (its server/src) into e2e/out. */
async function markerAt(ref: string): Promise<CreateMarker> {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, 'e2e', 'out', 'bench-baseline', sha);
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['archive', sha, 'server/src'], { cwd: ROOT, maxBuffer: 256 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  const mod = (await import(join(dir, 'server/src/net/dscpMarker.ts'))) as { createDscpMarker: CreateMarker };
  return mod.createDscpMarker;
}

/** An nft that counts its runs. */
function countingNft(dir: string): { path: string; runs: () => number } {
  const path = join(dir, 'nft');
  const log = join(dir, 'nft.runs');
  const nft = execFileSync('sh', ['-c', 'command -v nft'], { encoding: 'utf8' }).trim();
  writeFileSync(log, '');
  writeFileSync(path, `#!/bin/sh\necho run >> ${log}\nexec ${nft} "$@"\n`);
  chmodSync(path, 0o755);
  return { path, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

/** Rules in the tables whose name starts with `pels_<instance>`. */
function rulesOf(instance: string): number {
  const doc = JSON.parse(execFileSync('nft', ['-j', 'list', 'ruleset'], { encoding: 'utf8', maxBuffer: 256 << 20 })) as {
    nftables: { rule?: { table: string } }[];
  };
  return doc.nftables.filter((o) => o.rule?.table.startsWith(`pels_${instance}`)).length;
}

const viewerRules = (v: number) => COLOR_DSCPS.map((dscp, i) => ({ ssrc: 0x20000000 + 3 * v + i, dscp }));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round2 = (x: number): number => Math.round(x * 100) / 100;

async function measure(name: string, create: CreateMarker, viewers: number, rounds: number, dir: string): Promise<DscpRow> {
  const nft = countingNft(dir);
  const instance = `bench_${name.replace(/\W/g, '_')}_${process.pid}_${viewers}`;
  const marker = await create({ instance, udpPorts: PORTS, log: pino({ level: 'silent' }), nftPath: nft.path });
  try {
    let runs = nft.runs();
    let t = performance.now();
    const markings = await Promise.all(Array.from({ length: viewers }, (_, v) => marker.mark(viewerRules(v))));
    const joinMs = performance.now() - t;
    const joinRuns = nft.runs() - runs;
    const rules = rulesOf(instance);

    const times: number[] = [];
    runs = nft.runs();
    for (let r = 0; r < rounds; r++) {
      t = performance.now();
      await (await marker.mark(viewerRules(viewers + r))).remove();
      times.push(performance.now() - t);
    }
    const markRemoveRuns = (nft.runs() - runs) / rounds;

    runs = nft.runs();
    t = performance.now();
    await Promise.all(markings.map((m) => m.remove()));
    const leaveMs = performance.now() - t;
    return {
      marker: name,
      viewers,
      joinMs: round2(joinMs),
      joinRuns,
      markRemoveMs: round2(median(times)),
      markRemoveRuns,
      rules,
      leaveMs: round2(leaveMs),
      leaveRuns: nft.runs() - runs,
    };
  } finally {
    await marker.close();
  }
}

export async function dscpMarking(o: { viewers: number[]; rounds: number; baseline?: string }, progress: (m: string) => void): Promise<DscpRow[]> {
  if (process.getuid?.() !== 0 || spawnSync('nft', ['list', 'tables'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('needs root and nft: the markers change the kernel’s nftables');
  }
  const markers: [string, CreateMarker][] = [];
  if (o.baseline) markers.push([o.baseline, await markerAt(o.baseline)]);
  markers.push(['current', createDscpMarker]);
  const dir = mkdtempSync(join(tmpdir(), 'pels-bench-dscp-'));
  const rows: DscpRow[] = [];
  try {
    for (const viewers of o.viewers) {
      for (const [name, create] of markers) {
        progress(`${name}: ${viewers} viewer(s)`);
        rows.push(await measure(name, create, viewers, o.rounds, dir));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
