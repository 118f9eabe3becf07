/**
 * What a Chromium player and the server did over a window of seconds, the player
 * read PLAYER_READ_LAG_MS after the server at both ends: the specs assert on it
 * what must hold on any machine, the playback benchmark turns its rates into figures.
 */
import type { Page } from 'playwright-core';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { LayerCounts, PlayerStats } from '@pels/shared/protocol/playerHook';
import type { StreamInfo } from '@pels/shared/protocol/signaling';
import { setTimeout as sleep } from 'node:timers/promises';
import { framesDue } from '../framesDue';


/** GETs a server path (the operator API among them) and returns its JSON. */
export type ServerJson = <T>(path: string) => Promise<T>;

/** Opens the player at `url` and waits until it plays; returns its viewer id and page load to first frame (ms). */
export async function startPlaying(page: Page, url: string): Promise<{ viewerId: string; firstFrameMs: number; now: number }> {
  const loaded = await page.goto(url);
  // Say why rather than wait for a player that is not there (e.g. not built: 503).
  if (loaded && !loaded.ok()) throw new Error(`the player's page answered ${loaded.status()}: ${(await loaded.text()).trim()}`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  return page.evaluate(() => {
    const pels = window.pels!;
    return { viewerId: pels.viewerId!, firstFrameMs: pels.firstFrameMs!, now: performance.now() };
  });
}

export const playerStats = (page: Page): Promise<PlayerStats> => page.evaluate(() => window.pels!.stats());

export interface FrameWindow {
  ms: number;
  /** Source frames the stream ingested, and those due by its frame rate (framesDue). */
  ingested: number;
  due: number;
  /** Frames the server sent this viewer, per layer, and skipped. */
  sent: LayerCounts;
  skipped: number;
  decoded: LayerCounts;
  /** Frames the player received (every color), and those of them it dropped: past their playout time, or unreferenced. */
  received: number;
  droppedByPlayer: number;
  /**
   * Frames the player received and holds, neither decoded nor dropped yet (waiting for their playout deadline or in
   * the decoder), at the window's end less at its start: on a busy machine a backlog, not a loss.
   */
  held: number;
  /** The player's stats at the window's end. */
  end: PlayerStats;
}

const layers = (tid0: number, tid1: number, tid2: number): LayerCounts => ({ total: tid0 + tid1 + tid2, tid0, tid1, tid2 });

/**
 * How long after each server read the player is read. A frame the server counted as sent may still be on the path, in
 * the player's receive queue or in a stats report the worker posts every STATS_INTERVAL_MS; a starved machine puts
 * hundreds of ms there (713 ms p50 over ICE-TCP at CI's load). Reading both ends of the window this much later counts
 * those frames on the side they arrived, whereas a frame lost stays missing.
 */
export const PLAYER_READ_LAG_MS = 2000;

/** Frames over `seconds`: the stream's, those the server sent viewer `viewerId` and those the player decoded. */
export async function frameWindow(page: Page, server: ServerJson, viewerId: string, seconds: number): Promise<FrameWindow> {
  const readServer = async () => {
    const t = Date.now();
    const [streams, viewers] = await Promise.all([server<{ streams: StreamInfo[] }>('/api/streams'), server<{ viewers: ViewerState[] }>('/api/viewers')]);
    const viewer = viewers.viewers.find((v) => v.id === viewerId);
    if (!viewer) throw new Error(`the server does not list viewer ${viewerId}`);
    const stream = streams.streams.find((s) => s.id === viewer.streamId)!;
    return { t, stream, viewer };
  };
  const readPlayerAfter = async (serverReadAt: number) => {
    await sleep(Math.max(0, serverReadAt + PLAYER_READ_LAG_MS - Date.now()));
    return playerStats(page);
  };
  const a = await readServer();
  const aPlayer = readPlayerAfter(a.t);
  await sleep(Math.max(0, a.t + seconds * 1000 - Date.now()));
  const b = await readServer();
  const [pa, pb] = [await aPlayer, await readPlayerAfter(b.t)];
  const ms = b.t - a.t;
  const ingested = b.stream.framesIngested - a.stream.framesIngested;
  const d = (k: keyof LayerCounts) => pb.framesDecoded[k] - pa.framesDecoded[k];
  const s = (k: 'tid0' | 'tid1' | 'tid2') => b.viewer.framesSent[k] - a.viewer.framesSent[k];
  return {
    ms,
    ingested,
    due: framesDue(ingested, b.stream.frameRate, ms),
    sent: layers(s('tid0'), s('tid1'), s('tid2')),
    skipped: b.viewer.framesSkipped - a.viewer.framesSkipped,
    decoded: layers(d('tid0'), d('tid1'), d('tid2')),
    received: receivedFrames(pb) - receivedFrames(pa),
    droppedByPlayer: pb.framesSkipped + pb.framesLate - pa.framesSkipped - pa.framesLate,
    held: heldFrames(pb) - heldFrames(pa),
    end: pb,
  };
}

export type Subscribed = 'all' | 'green';

/**
 * The frames the server sent that reach a player subscribed to every color, or to green alone: the server counts every
 * layer it sends on the viewer's colors whichever the player subscribed (a green-only window counts tid1 and tid2 too),
 * and green carries the base layer (tid0) in every flow mode.
 */
export const sentToPlayer = (w: FrameWindow, subscribed: Subscribed): number => (subscribed === 'all' ? w.sent.total : w.sent.tid0);

const receivedFrames = (s: PlayerStats): number => s.framesReceived.green + s.framesReceived.yellow + s.framesReceived.red;
const heldFrames = (s: PlayerStats): number => receivedFrames(s) - s.framesDecoded.total - s.framesSkipped - s.framesLate;

/**
 * Share of the frames the server sent that the player must decode on an open path: all but the few a busy machine's
 * player drops late (110 of 112 and 156 of 157 were read at load average 25 on 2 cores).
 */
export const DECODED_OF_SENT = 0.98;

/** Coverage of the last 150 frame periods, as the page's coverage summary states it. */
export async function coverage(page: Page): Promise<{ periods: number; shownOwn: number; green: number; yellow: number; red: number }> {
  const el = page.getByTestId('coverage-summary');
  const n = async (attr: string) => Number(await el.getAttribute(`data-${attr}`));
  return { periods: await n('periods'), shownOwn: await n('shown-own'), green: await n('green'), yellow: await n('yellow'), red: await n('red') };
}

/**
 * Scores come with the server's table rows, batched every 0.5 s, and later on a busy machine (its quality analysis
 * falls behind): a window's scores are read once their count has held for this long.
 */
const SCORES_SETTLED_MS = 2500;
/** How long a window's scores may take to come at all. */
const SCORES_TIMEOUT_MS = 60_000;

export interface QualityWindow {
  seconds: number;
  /** Display periods that began in the window, those scored (a PSNR known), and those that repeated an earlier frame. */
  periods: number;
  scored: number;
  repeats: number;
  meanPsnr: number | null;
  coverage: Awaited<ReturnType<typeof coverage>>;
}

/** Plays `seconds` and scores the displayed frames of that window (once their scores have come). */
export async function qualityWindow(page: Page, seconds: number): Promise<QualityWindow> {
  const from = await page.evaluate(() => performance.now());
  await page.waitForTimeout(seconds * 1000);
  const to = await page.evaluate(() => performance.now());
  const cov = await coverage(page);
  const read = async () => {
    const samples = await page.evaluate(() => window.pels!.qualitySamples());
    const inWindow = samples.filter((s) => s.t >= from && s.t < to);
    return { inWindow, scored: inWindow.flatMap((s) => (s.psnr === null ? [] : [s.psnr])) };
  };
  let { inWindow, scored } = await read();
  const ended = Date.now();
  for (let heldSince = ended; Date.now() - heldSince < SCORES_SETTLED_MS || scored.length === 0; ) {
    if (Date.now() - ended > SCORES_TIMEOUT_MS) break;
    await page.waitForTimeout(500);
    const next = await read();
    if (next.scored.length !== scored.length) heldSince = Date.now();
    ({ inWindow, scored } = next);
  }
  return {
    seconds,
    periods: inWindow.length,
    scored: scored.length,
    repeats: inWindow.filter((s) => s.shown !== s.index).length,
    meanPsnr: scored.length ? scored.reduce((x, y) => x + y, 0) / scored.length : null,
    coverage: cov,
  };
}
