/**
 * How long a player's join takes and where the time goes: page load to first
 * frame over fresh Chromium pages, one after another, with each join's phases
 * (window.pels.joinPhasesMs); then the mediasoup worker killed under playing
 * pages, from the kill until every page plays again. `hogs` busy loops load
 * the machine for the run, so a join under load can be measured the same way
 * each time.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { startServer } from '../serverProcess';
import { mediaWorkerPids } from '../serverChildren';
import { launchBrowser } from '../testbed/browser';
import { median, quantile } from '../testbed/metrics';
import { Resources } from '../testbed/resources';
import { startPlaying } from '../player/playerWindow';

export interface JoinTimeOptions {
  joins: number;
  kills: number;
  /** Chromium pages playing through each kill. */
  pages: number;
  hogs: number;
}

export interface JoinTimeReport {
  /** Page load to first frame of each join, ms. */
  firstFrameMs: number[];
  /** Each phase's median over the joins, ms, in the player's order. */
  phaseMedianMs: Record<string, number>;
  /** From each kill until every page decoded a frame of its new session, ms; null: not within the wait. */
  recoveryMs: (number | null)[];
  /** The phases of the rejoins after the kills, medians, ms. */
  rejoinPhaseMedianMs: Record<string, number>;
  /** Media worker requests the server logged as slow (over 1 s). */
  slowWorkerRequests: number;
  loadBefore: number;
  loadAfter: number;
}

const RECOVERY_WAIT_MS = 60_000;
const SETTLE_MS = 3000;

/** Busy loops, each a process of its own, until the run ends. */
function startHogs(n: number, res: Resources): void {
  for (let i = 0; i < n; i++) {
    const hog = spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' });
    res.add(async () => {
      hog.kill('SIGKILL');
    });
  }
}

/** Each phase's median over the sessions' phases, in the order of the first. */
function phaseMedians(sessions: Record<string, number>[]): Record<string, number> {
  const names = [...new Set(sessions.flatMap((s) => Object.keys(s)))];
  return Object.fromEntries(names.map((n) => [n, median(sessions.flatMap((s) => (s[n] === undefined ? [] : [s[n]!])))!]));
}

const readSession = (page: Page) => page.evaluate(() => ({ viewerId: window.pels?.viewerId, state: window.pels?.state, phases: window.pels?.joinPhasesMs }));

export async function joinTime(o: JoinTimeOptions, progress: (m: string) => void): Promise<JoinTimeReport> {
  const res = new Resources();
  let slowWorkerRequests = 0;
  try {
    const token = randomBytes(24).toString('base64url');
    // One media worker: a kill then hits every page's viewer, and the recovery includes the worker's restart.
    const server = await startServer({
      env: { OPERATOR_TOKEN: token, MKC_INITIAL_KBPS: '100000', MEDIA_WORKERS: '1' },
      onLog: (l) => {
        if (l.includes('slow media worker request')) slowWorkerRequests++;
      },
    });
    res.add(() => server.stop());
    const browser = await launchBrowser(null, server.url, res);
    startHogs(o.hogs, res);
    const loadBefore = loadavg()[0]!;

    const firstFrameMs: number[] = [];
    const phases: Record<string, number>[] = [];
    for (let i = 0; i < o.joins; i++) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const played = await startPlaying(page, server.url);
        firstFrameMs.push(Math.round(played.firstFrameMs));
        const s = await readSession(page);
        if (s.phases) phases.push(s.phases);
        progress(`join ${i + 1}: first frame ${Math.round(played.firstFrameMs)} ms ${JSON.stringify(s.phases)}`);
      } finally {
        await context.close();
      }
    }

    const recoveryMs: (number | null)[] = [];
    const rejoinPhases: Record<string, number>[] = [];
    if (o.kills > 0) {
      const pages: Page[] = [];
      for (let i = 0; i < o.pages; i++) {
        const page = await (await browser.newContext()).newPage();
        await startPlaying(page, server.url);
        pages.push(page);
      }
      for (let k = 0; k < o.kills; k++) {
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const before = await Promise.all(pages.map(readSession));
        const [pid] = mediaWorkerPids(server.pid);
        if (pid === undefined) throw new Error('no mediasoup worker to kill');
        process.kill(pid, 'SIGKILL');
        const killedAt = Date.now();
        const back = await Promise.all(
          pages.map((page, i) =>
            page
              .waitForFunction((old) => window.pels?.state === 'playing' && window.pels.viewerId !== old, before[i]!.viewerId, { timeout: RECOVERY_WAIT_MS, polling: 50 })
              .then(
                () => Date.now() - killedAt,
                () => null,
              ),
          ),
        );
        const worst = back.some((b) => b === null) ? null : Math.max(...(back as number[]));
        recoveryMs.push(worst);
        for (const s of await Promise.all(pages.map(readSession))) if (s.phases) rejoinPhases.push(s.phases);
        progress(`kill ${k + 1}: every page playing again after ${worst ?? '-'} ms (${back.join(', ')})`);
      }
    }
    return {
      firstFrameMs,
      phaseMedianMs: phaseMedians(phases),
      recoveryMs,
      rejoinPhaseMedianMs: phaseMedians(rejoinPhases),
      slowWorkerRequests,
      loadBefore,
      loadAfter: loadavg()[0]!,
    };
  } finally {
    await res.release();
  }
}

export function formatJoinTime(r: JoinTimeReport): string[] {
  const fmt = (p: Record<string, number>) => Object.entries(p).map(([k, v]) => `${k} ${v}`).join(', ');
  const known = r.recoveryMs.filter((x): x is number => x !== null);
  return [
    `joins: ${r.firstFrameMs.length}, page load to first frame p50 ${median(r.firstFrameMs) ?? '-'} ms, p95 ${quantile(r.firstFrameMs, 0.95) ?? '-'} ms (${r.firstFrameMs.join(', ')})`,
    `join phases, medians (ms): ${fmt(r.phaseMedianMs)}`,
    `worker kills: ${r.recoveryMs.length}, every page playing again after (ms): ${r.recoveryMs.map((x) => x ?? 'not within 60 s').join(', ')}; median ${median(known) ?? '-'}, worst ${known.length ? Math.max(...known) : '-'}`,
    `rejoin phases after the kills, medians (ms): ${fmt(r.rejoinPhaseMedianMs)}`,
    `slow media worker requests logged: ${r.slowWorkerRequests}; load average (1 min) before ${r.loadBefore.toFixed(2)}, after ${r.loadAfter.toFixed(2)}`,
  ];
}
