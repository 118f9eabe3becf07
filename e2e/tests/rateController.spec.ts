/**
 * The rate controller per viewer: a player's `?cc=`, the operator's switch of
 * a live viewer and a stream's default for its next viewers; each named in
 * the viewer's state, the player's stats and /metrics. Unknown names are
 * refused with the known ones.
 */
import { expect, test, type Page } from '@playwright/test';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { OperatorSnapshot } from '@pels/shared/protocol/operator';
import { E2E_METRICS_TOKEN, operatorHeaders } from '../src/operatorToken';


async function play(page: Page, query: string): Promise<string> {
  await page.goto(`/${query}`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  return (await page.evaluate(() => window.pels!.viewerId))!;
}

async function viewer(page: Page, id: string): Promise<ViewerState> {
  const snap = (await (await page.request.get('/api/operator/snapshot', { headers: operatorHeaders() })).json()) as OperatorSnapshot;
  return snap.viewers.find((v) => v.id === id)!;
}

test('a player with ?cc=aimd plays under AIMD: its state, its stats and /metrics name the controller', async ({ page }) => {
  const id = await play(page, '?cc=aimd');
  const decoded = () => page.evaluate(() => window.pels!.stats().framesDecoded.total);
  const before = await decoded();
  await page.waitForTimeout(3000);
  expect(await decoded()).toBeGreaterThan(before + 30);
  expect((await viewer(page, id)).controller).toBe('aimd');
  await expect(page.getByTestId('controller')).toHaveText('aimd');
  const metrics = await (await page.request.get('/metrics', { headers: operatorHeaders(E2E_METRICS_TOKEN) })).text();
  expect(metrics).toMatch(new RegExp(`^pels_viewer_rate_kbps\\{stream="default",viewer="${id}",controller="aimd"\\} \\d`, 'm'));
});

test('the operator switches a live viewer to another controller, and sets a stream default for its next viewers', async ({ page, browser }) => {
  const id = await play(page, '');
  expect((await viewer(page, id)).controller).toBe('mkc');
  const res = await page.request.post(`/api/viewers/${id}/controller`, { headers: operatorHeaders(), data: { controller: 'tfrc' } });
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { viewer: ViewerState }).viewer.controller).toBe('tfrc');
  await expect(page.getByTestId('controller')).toHaveText('tfrc');

  const set = await page.request.post('/api/streams/default/controller', { headers: operatorHeaders(), data: { controller: 'iiad' } });
  expect(set.status()).toBe(200);
  const next = await browser.newPage();
  try {
    const nextId = await play(next, '');
    expect((await viewer(next, nextId)).controller).toBe('iiad');
    // The player's choice wins over the stream's.
    const chosen = await browser.newPage();
    const chosenId = await play(chosen, '?cc=sqrt');
    expect((await viewer(chosen, chosenId)).controller).toBe('sqrt');
    await chosen.close();
  } finally {
    await next.close();
    await page.request.post('/api/streams/default/controller', { headers: operatorHeaders(), data: { controller: 'mkc' } });
  }
});

test('an unknown controller is refused with the known names: the API with a 400, the player with its error', async ({ page }) => {
  const id = await play(page, '');
  for (const path of [`/api/viewers/${id}/controller`, '/api/streams/default/controller']) {
    const res = await page.request.post(path, { headers: operatorHeaders(), data: { controller: 'cubic' } });
    expect(res.status()).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toContain('"mkc"|"aimd"|"iiad"|"sqrt"|"tfrc"|"rap"|"fuzzy"|"iscc"');
  }
  await page.goto('/?cc=cubic');
  await page.waitForFunction(() => window.pels?.error !== undefined, null, { timeout: 30_000 });
  expect(await page.evaluate(() => window.pels!.error)).toContain('unknown rate controller "cubic"; one of mkc, aimd, iiad, sqrt, tfrc, rap, fuzzy, iscc');
});
