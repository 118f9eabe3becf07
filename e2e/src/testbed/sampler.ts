/**
 * The testbed's periodic reads: once a second each player's hook, the server's
 * operator snapshot and router-feedback state, the bottleneck's counters and
 * the TCP flows' bytes; at the end the players' display samples and the
 * server's counters.
 */
import type { Page } from 'playwright-core';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import type { PlayerStats } from '@pels/shared/protocol/playerHook';
import type { RouterFeedbackState } from '@pels/shared/protocol/routerFeedback';
import type { BottleneckCounters } from '../net/pelsBottleneck';
import type { ReceiversReport } from '../loadtest/receiverReport';
import { psnrSummary, serverCounters, type ServerCounters } from './metrics';
import type { Progress } from './testbed';

export interface PlayerSample {
  stats: PlayerStats;
  /** The player's state ('playing', 'connecting', 'error', ...). */
  state: string;
  /** Why its last session failed, until it plays again. */
  error: string | undefined;
  viewerId: string | undefined;
  /** Page load to its first decoded frame, ms; undefined before it. */
  firstFrameMs: number | undefined;
  /** The same instant on the wall clock (ms since the epoch), to compare with the server's: undefined before it. */
  firstFrameAtMs: number | undefined;
  /** The player's UPTA banner (base layer only, or paused), when it shows one. */
  upta?: string;
}

/** One second of the run. */
export interface Sample {
  t: number;
  /** The server's clock when it read the viewer states (ms since the epoch), when known. */
  atMs: number | null;
  players: (PlayerSample | null)[];
  /** Server state of each player's viewer (same order), when known. */
  api: (ViewerState | null)[];
  /** Measured full rate of each player's stream (same order), kb/s, when known. */
  streamKbps: (number | null)[];
  router: BottleneckCounters | null;
  routerFeedback: RouterFeedbackState | null;
  /** The bottleneck's capacity at this second, kb/s; null: no bottleneck. */
  capacityKbps: number | null;
  /** Each TCP flow's bytes received so far; null: no TCP flows running yet. */
  tcpBytes: number[] | null;
}

/** What the sampler reads from. */
export interface SampleSources {
  pages: Page[];
  /** The server's URL from this process, and the operator API's headers. */
  serverUrl: string;
  operator: { authorization: string };
  /** With a cluster: the nodes whose viewers are read (the edges), their snapshots merged; undefined: the server's. */
  viewerNodeUrls?: () => string[];
  /** The bottleneck's counters now; null: unreadable or no bottleneck. */
  routerCounters(): Promise<BottleneckCounters | null>;
  /** The bottleneck's capacity at second s of the run; null: no bottleneck. */
  capacityAt(s: number): number | null;
  /** Each TCP flow's bytes received so far; null: none running. */
  tcpBytes(): number[] | null;
}

export interface SampledRun {
  samples: Sample[];
  /** The server's snapshot at each sample: the synthetic viewers' states are picked from it by id at the end. */
  snapshots: (OperatorSnapshot | null)[];
}

/**
 * Samples each second from `t0` for `seconds`, calling `afterSample` after each; ends early at the first sample
 * after which `stopWhen` holds.
 */
export async function sampleEverySecond(
  src: SampleSources,
  seconds: number,
  t0: number,
  afterSample: (s: number) => Promise<void>,
  progress: Progress,
  stopWhen?: (samples: readonly Sample[]) => boolean,
): Promise<SampledRun> {
  const samples: Sample[] = [];
  const snapshots: (OperatorSnapshot | null)[] = [];
  for (let s = 1; s <= seconds; s++) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + s * 1000 - Date.now())));
    const players = await Promise.all(src.pages.map(playerSample));
    const snapshot = src.viewerNodeUrls ? await mergedSnapshot(src, src.viewerNodeUrls()) : await operatorApi<OperatorSnapshot>(src, '/api/operator/snapshot');
    const viewers = snapshot?.viewers ?? [];
    const routerFeedback = (await operatorApi<{ router: RouterFeedbackState | null }>(src, '/api/router'))?.router ?? null;
    const router = await src.routerCounters();
    const states = players.map((p) => viewers.find((v) => v.id === p?.viewerId) ?? null);
    const streamKbps = states.map((v) => snapshot?.streams.find((x) => x.id === v?.streamId)?.layerKbps?.total ?? null);
    samples.push({ t: s, atMs: snapshot ? Date.parse(snapshot.at) : null, players, api: states, streamKbps, router, routerFeedback, capacityKbps: src.capacityAt(s), tcpBytes: src.tcpBytes() });
    snapshots.push(snapshot);
    await afterSample(s);
    if (s % 5 === 0 || s === seconds) progress(`${s} / ${seconds} s`);
    if (stopWhen?.(samples)) {
      progress(`ended at ${s} s: the run has shown what it was run for`);
      break;
    }
  }
  return { samples, snapshots };
}

function playerSample(p: Page): Promise<PlayerSample | null> {
  return p
    .evaluate(() => {
      const pels = window.pels;
      const firstFrameAtMs = pels?.firstFrameMs === undefined ? undefined : performance.timeOrigin + pels.firstFrameMs;
      return pels ? { stats: pels.stats(), state: pels.state, error: pels.error, viewerId: pels.viewerId, firstFrameMs: pels.firstFrameMs, firstFrameAtMs, upta: pels.upta } : null;
    })
    .catch(() => null);
}

/** The nodes' snapshots as one: every node's viewers, the first answer's streams and clock; null: none answered. */
async function mergedSnapshot(src: SampleSources, urls: string[]): Promise<OperatorSnapshot | null> {
  const snaps = (await Promise.all(urls.map((serverUrl) => operatorApi<OperatorSnapshot>({ ...src, serverUrl }, '/api/operator/snapshot')))).filter((x): x is OperatorSnapshot => x !== null);
  const first = snaps[0];
  return first ? { ...first, viewers: snaps.flatMap((x) => x.viewers) } : null;
}

function operatorApi<T>(src: Pick<SampleSources, 'serverUrl' | 'operator'>, path: string): Promise<T | null> {
  return fetch(`${src.serverUrl}${path}`, { headers: src.operator, signal: AbortSignal.timeout(2000) }).then((r) => (r.ok ? (r.json() as Promise<T>) : null), () => null);
}

/** Each page's clock now (performance.now()); Infinity for a page that cannot say. */
export function pageClocks(pages: Page[]): Promise<number[]> {
  return Promise.all(pages.map((p) => p.evaluate(() => performance.now()).catch(() => Infinity)));
}

/** Each player's displayed quality from its page clock `since[i]` on. */
export function displaySummaries(pages: Page[], since: number[]): Promise<ReturnType<typeof psnrSummary>[]> {
  return Promise.all(
    pages.map((page, i) =>
      page
        .evaluate(() => window.pels?.qualitySamples() ?? [])
        .then((xs) => psnrSummary(xs, since[i]!), () => psnrSummary([], 0)),
    ),
  );
}

/** The server's own counters (its /metrics); null: unreadable. */
export async function readServerCounters(src: Pick<SampleSources, 'serverUrl' | 'operator'>): Promise<ServerCounters | null> {
  const metrics = await fetch(`${src.serverUrl}/metrics`, { headers: src.operator, signal: AbortSignal.timeout(2000) }).then((r) => (r.ok ? r.text() : null), () => null);
  return metrics === null ? null : serverCounters(metrics);
}

/**
 * Appends each synthetic viewer's server state (and its stream's rate) to
 * every sample, after the Chromium viewers', in the receivers' order; a
 * receiver that never learnt its viewer id gets nulls.
 */
export function addSyntheticStates(samples: Sample[], snapshots: (OperatorSnapshot | null)[], receivers: ReceiversReport): void {
  samples.forEach((s, k) => {
    const snap = snapshots[k];
    for (const r of receivers.receivers) {
      const v = (r.viewerId && snap?.viewers.find((x) => x.id === r.viewerId)) || null;
      s.api.push(v);
      s.streamKbps.push(snap?.streams.find((x) => x.id === v?.streamId)?.layerKbps?.total ?? null);
    }
  });
}
