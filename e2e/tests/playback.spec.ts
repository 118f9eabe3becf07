/**
 * The player plays the default stream on an open loopback path: what must hold on any machine (it plays, every frame
 * the server sent is decoded but the few a busy machine drops late, no decode errors, the layers of the subscription
 * and no others). The rates (decoded per source frame due, layer shares, time to the first frame) are figures of
 * `npm run bench -- playback`, checked against e2e/bench-baselines/playback.json by `npm run bench -- check playback`.
 */
import { expect, test, type Page } from '@playwright/test';
import type { Color } from '@pels/shared/pels/color';
import { operatorHeaders } from '../src/operatorToken';
import { DECODED_OF_SENT, frameWindow, sentToPlayer, startPlaying, type FrameWindow, type ServerJson, type Subscribed } from '../src/player/playerWindow';

const server =
  (page: Page): ServerJson =>
  async <T>(path: string) =>
    (await (await page.request.get(path, { headers: operatorHeaders() })).json()) as T;

/** Frames over `seconds`, annotated. */
async function measure(page: Page, viewerId: string, seconds: number): Promise<FrameWindow> {
  const w = await frameWindow(page, server(page), viewerId, seconds);
  test.info().annotations.push({ type: 'measured', description: JSON.stringify(w) });
  return w;
}

/**
 * Every frame sent to the colors subscribed is decoded or still held by the player (a busy machine's backlog), but the
 * few it drops late; no decode error.
 */
function expectSentDecoded(w: FrameWindow, subscribed: Subscribed): void {
  expect(w.decoded.total + w.held, JSON.stringify(w)).toBeGreaterThanOrEqual(DECODED_OF_SENT * sentToPlayer(w, subscribed));
  expect(w.end.decodeErrors, w.end.lastError).toBe(0);
}

const setColors = (page: Page, colors: Color[]) => page.evaluate((c) => window.pels!.setColors(c), colors);

test('plays the default stream: all three layers decode, every frame sent', async ({ page }) => {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const { viewerId, firstFrameMs, now } = await startPlaying(page, '/');
  // Page load to the first decoded frame, kept by the test hook from the moment the player started playing.
  expect(firstFrameMs).toBeGreaterThan(0);
  expect(firstFrameMs).toBeLessThanOrEqual(now);
  const m = await measure(page, viewerId, 15);
  // The server sent every layer, and the player decoded them: of the 0,2,1,2 pattern, tid2 is the most frequent.
  for (const k of ['tid0', 'tid1', 'tid2'] as const) expect(m.sent[k], JSON.stringify(m)).toBeGreaterThan(0);
  expectSentDecoded(m, 'all');
  expect(m.decoded.tid2, JSON.stringify(m)).toBeGreaterThan(m.decoded.tid0);
  expect(m.decoded.tid2, JSON.stringify(m)).toBeGreaterThan(m.decoded.tid1);
  expect(m.end.width).toBe(640);
  expect(m.end.height).toBe(360);
  expect(pageErrors).toEqual([]);
});

test('with only green subscribed, the base layer alone decodes', async ({ page }) => {
  const { viewerId } = await startPlaying(page, '/?colors=green');
  await page.waitForTimeout(2000); // let frames already in flight drain
  const m = await measure(page, viewerId, 15);
  expect(m.decoded.tid1).toBe(0);
  expect(m.decoded.tid2).toBe(0);
  expect(m.sent.tid0).toBeGreaterThan(0);
  expectSentDecoded(m, 'green');
  // No more than the base frames sent (in flight at the window's start: a few).
  expect(m.decoded.tid0, JSON.stringify(m)).toBeLessThanOrEqual(m.sent.tid0 + 2);
});

test('unsubscribing yellow and red live drops to the base layer, resubscribing restores all layers', async ({ page }) => {
  const { viewerId } = await startPlaying(page, '/');
  await setColors(page, ['green']);
  await page.waitForTimeout(1500);
  const greenOnly = await measure(page, viewerId, 5);
  expect(greenOnly.decoded.tid1 + greenOnly.decoded.tid2).toBe(0);
  expect(greenOnly.decoded.tid0).toBeGreaterThan(0);
  await setColors(page, ['green', 'yellow', 'red']);
  await page.waitForTimeout(3000);
  const all = await measure(page, viewerId, 5);
  expect(all.decoded.tid1).toBeGreaterThan(0);
  expect(all.decoded.tid2).toBeGreaterThan(0);
  expectSentDecoded(all, 'all');
});
