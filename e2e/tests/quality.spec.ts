/**
 * Measured video quality in the player: live Y-PSNR of every displayed frame (the
 * server's PSNR table joined with what the display showed), layer coverage, and the
 * check that the player's decode is bit-exact with the server's (Y-plane CRC32).
 * What must hold on any machine: frames are scored, each subscription shows its
 * layers and no others, more layers score higher, and the decode is bit-exact. The
 * scores and rates themselves (about 29 dB with all layers, 27.5 with TID <= 1, 24.5
 * with the base layer alone on this clip; periods shown per second, the share scored)
 * are figures of `npm run bench -- playback`, checked by `npm run bench -- check playback`.
 */
import { readFile } from 'node:fs/promises';
import { expect, test, type Download, type Page } from '@playwright/test';
import { coverage, qualityWindow, startPlaying, type QualityWindow } from '../src/player/playerWindow';

const MEASURE_S = 20;

const hook = (page: Page) => page.evaluate(() => window.pels!.stats());

/** Plays MEASURE_S seconds and scores the displayed frames of that window. */
async function measure(page: Page, label: string): Promise<QualityWindow & { meanPsnr: number; shownPsnrMean: string | null }> {
  const q = await qualityWindow(page, MEASURE_S);
  const result = { ...q, label, shownPsnrMean: await page.getByTestId('psnr-mean').textContent() };
  test.info().annotations.push({ type: 'measured', description: JSON.stringify(result) });
  console.log(`quality ${label}: ${q.meanPsnr?.toFixed(2)} dB over ${q.scored} of ${q.periods} displayed periods, ${q.repeats} repeats`);
  // The display's periods of the window are samples, and scored ones among them.
  expect(q.scored, JSON.stringify(result)).toBeGreaterThan(0);
  return { ...result, meanPsnr: q.meanPsnr! };
}

async function expectBitExact(page: Page): Promise<void> {
  const s = await hook(page);
  expect(s.checksumsCompared).toBeGreaterThan(0);
  expect(s.checksumMismatches).toBe(0);
  expect(s.decodeErrors, s.lastError).toBe(0);
  expect(await page.getByTestId('checksums').textContent()).toMatch(/^\d+ compared, 0 mismatched$/);
}

async function readDownload(download: Download): Promise<string> {
  const path = await download.path();
  return readFile(path, 'utf8');
}

test('live PSNR per displayed frame: all layers > green and yellow > green; the player decodes bit-exact with the server', async ({ browser }, testInfo) => {
  test.setTimeout(300_000);

  const greenPage = await browser.newPage();
  await startPlaying(greenPage, '/?colors=green');
  await greenPage.waitForTimeout(2000);
  const green = await measure(greenPage, 'green only');
  expect(green.coverage.green).toBeGreaterThan(0);
  expect(green.coverage.yellow + green.coverage.red).toBe(0);
  await expectBitExact(greenPage);
  await greenPage.close();

  // Best effort sends each layer on its own color (TID 0 green, 1 yellow, 2 red), so
  // green and yellow are exactly TID <= 1. (PELS colors by importance: at no loss,
  // yellow carries all but the gamma share of the enhancement bytes.)
  const page = await browser.newPage({ viewport: { width: 1100, height: 1900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await startPlaying(page, '/?mode=best-effort');
  const playingSince = Date.now();
  // The lab panel (charts, statistics, export) is folded under the video until opened.
  await page.getByTestId('lab-panel').locator('summary').click();
  // Wait until nearly every frame period shows its own frame (MKC may still be
  // ramping up where the server starts viewers below the full rate).
  await expect
    .poll(async () => {
      const c = await coverage(page);
      return c.periods === 150 ? c.shownOwn / c.periods : 0;
    }, { timeout: 150_000, intervals: [2000] })
    .toBeGreaterThan(0.95);
  const all = await measure(page, 'all layers');
  expect(all.coverage.yellow).toBeGreaterThan(0);
  expect(all.coverage.red).toBeGreaterThan(0);

  const shot = testInfo.outputPath('player.png');
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach('player', { path: shot, contentType: 'image/png' });
  console.log(`player screenshot: ${shot}`);

  await page.evaluate(() => window.pels!.setColors(['green', 'yellow']));
  await page.waitForTimeout(3000);
  const greenYellow = await measure(page, 'green and yellow');
  expect(greenYellow.coverage.red).toBe(0);
  expect(greenYellow.coverage.yellow).toBeGreaterThan(0);
  await expectBitExact(page);
  expect(pageErrors).toEqual([]);

  // The session's per-second metrics download as CSV and JSON.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
  const lines = (await readDownload(csv)).trim().split('\n');
  expect(lines[0]).toMatch(/^t,psnrMean,psnrMin,periods,repeats,fps,/);
  // One row per second of the session.
  const seconds = Math.floor((Date.now() - playingSince) / 1000);
  expect(lines.length - 1).toBeGreaterThan(seconds - 5);
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = JSON.parse(await readDownload(json)) as { session: { mode: string }; rows: { t: number; psnrMean: number | null; psnrMin: number | null }[] };
  expect(exported.session.mode).toBe('best-effort');
  // The same seconds in both formats (a second may end between the two clicks).
  expect(Math.abs(exported.rows.length - (lines.length - 1))).toBeLessThanOrEqual(1);
  // Seconds carry their scores, each a Y-PSNR of this clip and its mean no lower than its minimum. How many seconds
  // have one is the machine's (its quality analysis drops planes when short of CPU): the playback benchmark's figure.
  const scoredRows = exported.rows.filter((r) => r.psnrMean !== null);
  expect(scoredRows.length).toBeGreaterThan(0);
  for (const r of scoredRows) {
    expect(r.psnrMean!, JSON.stringify(r)).toBeGreaterThan(15);
    expect(r.psnrMean!, JSON.stringify(r)).toBeLessThan(60);
    expect(r.psnrMin!, JSON.stringify(r)).toBeLessThanOrEqual(r.psnrMean!);
  }

  // More layers, a better picture: the order of the scores (their values are the playback benchmark's).
  expect(all.meanPsnr).toBeGreaterThan(greenYellow.meanPsnr);
  expect(greenYellow.meanPsnr).toBeGreaterThan(green.meanPsnr);
  // The page shows the session's mean PSNR.
  expect(all.shownPsnrMean).toMatch(/^\d+\.\d\d dB$/);
});

test('/compare plays the stream in two independent players, PELS and best effort', async ({ page }) => {
  await page.goto('/compare');
  for (const mode of ['pels', 'best-effort']) {
    await expect(page.getByTestId(`player-${mode}`).locator('h2 .state')).toHaveText('playing', { timeout: 30_000 });
  }
  await page.waitForTimeout(5000);
  const columns = ['pels', 'best-effort'].map((mode) => page.getByTestId(`player-${mode}`));
  const checksums = await Promise.all(columns.map((c) => c.getByTestId('checksums').textContent()));
  for (const text of checksums) expect(text).toMatch(/^[1-9]\d* compared, 0 mismatched$/);
  // Each player joined as its own viewer, and the server runs each in its mode.
  const ids = await Promise.all(columns.map((c) => c.getByTestId('viewer-id').textContent()));
  expect(new Set(ids).size).toBe(2);
  await expect(columns[0]!.getByTestId('server-mode')).toHaveText('pels');
  await expect(columns[1]!.getByTestId('server-mode')).toHaveText('best-effort');
  expect(await page.evaluate(() => 'pels' in window)).toBe(false);
});
