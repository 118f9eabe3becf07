/**
 * Viewers are told: a player watching a source that stalls, is restarted or is
 * killed says so over the video and keeps its session; an operator's disconnect
 * sticks (the player says why and waits for its user); other closes rejoin by
 * themselves. Each test adds its own lavfi stream (a frame size no other test
 * uses, so `pgrep -f` finds its FFmpeg) and removes it.
 */
import { execFileSync } from 'node:child_process';
import { expect, test, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import type { ViewerState } from '@pels/shared/protocol/api';
import { operatorHeaders } from '../src/operatorToken';

const auth = operatorHeaders();

/** Adds a lavfi stream of this frame size (unique to the test) and waits until it runs; removed by the returned function. */
async function addStream(request: APIRequestContext, id: string, size: string): Promise<() => Promise<void>> {
  const res = await request.post('/api/streams', { headers: auth, data: { id, source: `lavfi:testsrc2=size=${size}:rate=30` } });
  expect(res.status()).toBe(200);
  await expect
    .poll(async () => ((await (await request.get('/api/streams')).json()) as { streams: Array<{ id: string; state: string }> }).streams.find((s) => s.id === id)?.state, {
      timeout: 15_000,
    })
    .toBe('running');
  return async () => {
    await request.delete(`/api/streams/${id}`, { headers: auth });
  };
}

/** The stream's FFmpeg: the one process whose command line holds its lavfi size. */
function ffmpegPid(size: string): number {
  const pids = execFileSync('pgrep', ['-f', `testsrc2=size=${size}:`], { encoding: 'utf8' }).trim().split('\n').map(Number);
  expect(pids, `one ffmpeg for ${size}`).toHaveLength(1);
  return pids[0]!;
}

/** The player's test hook, its data properties and decoded frame count. */
async function player(page: Page): Promise<{ state?: string; viewerId?: string; framesDecoded: number }> {
  return page.evaluate(() => {
    const h = window.pels;
    return { state: h?.state, viewerId: h?.viewerId, framesDecoded: h?.stats().framesDecoded.total ?? 0 };
  });
}

async function play(page: Page, streamId: string): Promise<string> {
  await page.goto(`/?stream=${streamId}`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  return (await player(page)).viewerId!;
}

async function waitForStreamState(page: Page, state: string, timeout: number): Promise<void> {
  await page.waitForFunction((s) => window.pels?.streamState === s, state, { timeout });
}

/** Frames keep being decoded: the same session plays on. */
async function decodesMore(page: Page): Promise<void> {
  const before = (await player(page)).framesDecoded;
  await page.waitForFunction((n) => (window.pels?.stats().framesDecoded.total ?? 0) >= n + 30, before, { timeout: 20_000 });
}

async function shoot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: false });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

async function viewersOf(request: APIRequestContext, streamId: string): Promise<string[]> {
  const { viewers } = (await (await request.get('/api/viewers', { headers: auth })).json()) as { viewers: ViewerState[] };
  return viewers.filter((v) => v.streamId === streamId).map((v) => v.id);
}

test('a stalled source is shown over the video and cleared when frames flow again; a lasting stall is restarted; the session is kept', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const size = '338x190';
  const remove = await addStream(request, 'e2e-stall', size);
  try {
    const viewerId = await play(page, 'e2e-stall');
    const notice = page.getByTestId('video-notice');
    await expect(notice).toHaveCount(0);

    // Stopped briefly: stalled, then running again with the next frame (no restart).
    let pid = ffmpegPid(size);
    process.kill(pid, 'SIGSTOP');
    try {
      await waitForStreamState(page, 'stalled', 8000);
      await expect(notice).toHaveAttribute('data-cause', 'stalled');
      await expect(notice).toContainText('The source stopped sending');
      await shoot(page, testInfo, 'stalled');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitForStreamState(page, 'running', 8000);
    await expect(notice).toHaveCount(0);
    expect(await player(page)).toMatchObject({ state: 'playing', viewerId });
    await decodesMore(page);

    // Stopped for good: stalled, then the server replaces FFmpeg (restarting), then running.
    pid = ffmpegPid(size);
    process.kill(pid, 'SIGSTOP');
    try {
      await waitForStreamState(page, 'stalled', 8000);
      await waitForStreamState(page, 'restarting', 15_000);
      await expect(notice).toHaveAttribute('data-cause', 'restarting');
      await shoot(page, testInfo, 'restarting-after-stall');
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // killed by the server, as it should be
      }
    }
    await waitForStreamState(page, 'running', 20_000);
    await expect(notice).toHaveCount(0);
    expect(await player(page)).toMatchObject({ state: 'playing', viewerId });
    await decodesMore(page);
    expect(await viewersOf(request, 'e2e-stall')).toEqual([viewerId]);
  } finally {
    await remove();
  }
});

test('a killed FFmpeg shows restarting, then plays again in the same session', async ({ page, request }, testInfo) => {
  const size = '342x192';
  const remove = await addStream(request, 'e2e-kill', size);
  try {
    const viewerId = await play(page, 'e2e-kill');
    process.kill(ffmpegPid(size), 'SIGKILL');
    await waitForStreamState(page, 'restarting', 8000);
    const notice = page.getByTestId('video-notice');
    await expect(notice).toHaveAttribute('data-cause', 'restarting');
    await expect(notice).toContainText('The source is being restarted');
    await shoot(page, testInfo, 'restarting-after-kill');
    await waitForStreamState(page, 'running', 20_000);
    await expect(notice).toHaveCount(0);
    expect(await player(page)).toMatchObject({ state: 'playing', viewerId });
    await decodesMore(page);
  } finally {
    await remove();
  }
});

test("an operator's disconnect sticks: the player says why, does not rejoin, and reconnects when asked; a removed stream is rejoined by itself", async ({ page, request }, testInfo) => {
  const remove = await addStream(request, 'e2e-disconnect', '346x194');
  try {
    const viewerId = await play(page, 'e2e-disconnect');
    expect((await request.delete(`/api/viewers/${viewerId}`, { headers: auth })).status()).toBe(200);
    await page.waitForFunction(() => window.pels?.state === 'disconnected', null, { timeout: 5000 });
    const notice = page.getByTestId('video-notice');
    await expect(notice).toHaveAttribute('data-cause', 'disconnected');
    await expect(notice).toContainText('disconnected by the operator');
    await expect(notice).toContainText('does not reconnect by itself');
    await shoot(page, testInfo, 'disconnected-by-operator');

    // Longer than the first backoffs (0.25-0.5 s, then 0.5-1 s, 1-2 s): a rejoin would have happened.
    await page.waitForTimeout(5000);
    // Still disconnected, no new viewer joined (the page keeps the id of the one that was closed).
    expect(await player(page)).toMatchObject({ state: 'disconnected', viewerId });
    expect(await viewersOf(request, 'e2e-disconnect')).toEqual([]);

    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
    const again = (await player(page)).viewerId;
    expect(again).not.toBe(viewerId);
    expect(await viewersOf(request, 'e2e-disconnect')).toEqual([again]);
    await expect(notice).toHaveCount(0);

    // Any other close rejoins by itself after a backoff, and says so.
    await remove();
    await page.waitForFunction(() => /stream closed/.test(window.pels?.error ?? ''), null, { timeout: 5000 });
    await expect(page.getByRole('alert')).toContainText(/The server closed this viewer: stream closed\. Reconnecting/);
    await shoot(page, testInfo, 'stream-removed-rejoining');
    expect((await player(page)).state).not.toBe('disconnected');
  } finally {
    await remove();
  }
});
