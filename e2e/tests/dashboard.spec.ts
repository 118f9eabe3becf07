/**
 * The operator dashboard in Chromium against the real server: two live
 * players show up with changing numbers; switching one to best effort and
 * disconnecting the other show their effect. Saves a screenshot.
 */
import { expect, test, type Browser, type Page } from '@playwright/test';
import type { ViewerState } from '@pels/shared/protocol/api';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';


async function openPlayer(browser: Browser): Promise<{ page: Page; id: string }> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/');
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  return { page, id: (await page.evaluate(() => window.pels?.viewerId))! };
}

const row = (dash: Page, id: string) => dash.locator(`[data-testid="viewer-row"][data-viewer-id="${id}"]`);
const cell = (dash: Page, id: string, col: string) => row(dash, id).locator(`[data-col="${col}"]`);

test('without a token the dashboard asks for one, and a wrong token is refused', async ({ page }) => {
  await page.goto('/dashboard');
  await expect(page.getByLabel('Operator token')).toBeVisible();
  await page.getByLabel('Operator token').fill('wrong-token-of-some-length');
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByText('The server refused the token')).toBeVisible();
  await expect(page.locator('[data-testid="viewer-row"]')).toHaveCount(0);
});

test('two live viewers with changing numbers; switch one to best effort, disconnect the other', async ({ browser, page: dash, request }, testInfo) => {
  const a = await openPlayer(browser);
  const b = await openPlayer(browser);
  try {
    await dash.goto(`/dashboard#token=${encodeURIComponent(E2E_OPERATOR_TOKEN)}`);
    await expect(dash.getByTestId('dash-status')).toHaveText('live');
    // The token does not stay in the address bar.
    expect(new URL(dash.url()).hash).toBe('');
    await expect(dash.locator('[data-testid="stream-row"][data-stream-id="default"]')).toContainText('running');
    await expect(row(dash, a.id)).toBeVisible();
    await expect(row(dash, b.id)).toBeVisible();
    await expect(cell(dash, a.id, 'mode')).toHaveText('pels');
    // The loss diagnosis and the colors repaired: green always (nothing lost here, so no more).
    await expect(cell(dash, a.id, 'diagnosis')).toHaveText(/^(clear|wire-loss|congestion) · G$/);

    // Live: the numbers of both viewers change from second to second.
    const readings = new Map<string, Set<string>>([[a.id, new Set()], [b.id, new Set()]]);
    for (let i = 0; i < 6; i++) {
      for (const id of readings.keys()) {
        const values = await Promise.all(['rateKbps', 'sentKbps', 'gamma', 'lossRed'].map((c) => cell(dash, id, c).textContent()));
        readings.get(id)!.add(values.join(' '));
      }
      await dash.waitForTimeout(1000);
    }
    testInfo.annotations.push({ type: 'readings', description: JSON.stringify(Object.fromEntries([...readings].map(([k, v]) => [k, [...v]]))) });
    for (const [id, seen] of readings) expect(seen.size, `distinct readings of ${id}`).toBeGreaterThanOrEqual(3);
    const stream = dash.locator('[data-testid="stream-row"][data-stream-id="default"]');
    // The measured frame rate beside the configured one (what it measures is the playback benchmark's ingest fps).
    await expect(stream.locator('td').nth(3)).toHaveText(/^[1-9]\d*\.\d \(30\)$/);

    // A click on a row shows its time series.
    await row(dash, a.id).click();
    await expect(dash.getByTestId('viewer-chart').locator('canvas')).toBeVisible();

    // Filtering narrows the table to the matching viewer.
    await dash.getByPlaceholder('filter by viewer or stream id').fill(a.id);
    await expect(dash.locator('[data-testid="viewer-row"]')).toHaveCount(1);
    await dash.getByPlaceholder('filter by viewer or stream id').fill('');

    // Action 1: switch A to best effort; the table and the API show it.
    await row(dash, a.id).locator('[data-action="mode"]').click();
    await expect(dash.getByTestId('dash-notice')).toHaveText(`viewer ${a.id} switched to best-effort`);
    await expect(cell(dash, a.id, 'mode')).toHaveText('best-effort');
    await expect(cell(dash, b.id, 'mode')).toHaveText('pels');
    const listed = (await (await request.get('/api/viewers', { headers: operatorHeaders() })).json()) as { viewers: ViewerState[] };
    expect(listed.viewers.find((v) => v.id === a.id)?.mode).toBe('best-effort');

    // In a 1280-px window the viewer table fits: no sideways scroll, in the table or the page.
    await dash.setViewportSize({ width: 1280, height: 800 });
    const widths = await dash.evaluate(() => {
      const table = document.querySelector('.vtable')!;
      return { table: table.scrollWidth - table.clientWidth, page: document.documentElement.scrollWidth - document.documentElement.clientWidth };
    });
    expect(widths).toEqual({ table: 0, page: 0 });

    const shot = testInfo.outputPath('dashboard.png');
    await dash.screenshot({ path: shot, fullPage: true });
    await testInfo.attach('dashboard', { path: shot, contentType: 'image/png' });

    // Action 2: disconnect B; its row goes, and its player is told why.
    await row(dash, b.id).locator('[data-action="disconnect"]').click();
    await expect(row(dash, b.id)).toHaveCount(0);
    await b.page.waitForFunction(() => /disconnected by the operator/.test(window.pels?.error ?? ''), null, { timeout: 5000 });
    await expect(row(dash, a.id)).toBeVisible();
  } finally {
    await a.page.context().close();
    await b.page.context().close();
  }
});

test("the dashboard switches a viewer's rate controller and sets a stream's for its next viewers", async ({ browser, page: dash, request }) => {
  const a = await openPlayer(browser);
  try {
    await dash.goto(`/dashboard#token=${encodeURIComponent(E2E_OPERATOR_TOKEN)}`);
    const controller = (id: string) => row(dash, id).locator('[data-action="controller"]');
    await expect(controller(a.id)).toHaveValue('mkc');
    await controller(a.id).selectOption('aimd');
    await expect(dash.getByTestId('dash-notice')).toHaveText(`viewer ${a.id} switched to aimd`);
    await expect(controller(a.id)).toHaveValue('aimd');
    const listed = (await (await request.get('/api/viewers', { headers: operatorHeaders() })).json()) as { viewers: ViewerState[] };
    expect(listed.viewers.find((v) => v.id === a.id)?.controller).toBe('aimd');

    const stream = dash.locator('[data-testid="stream-row"][data-stream-id="default"]');
    await stream.locator('[data-action="controller"]').selectOption('sqrt');
    await expect(dash.getByTestId('dash-notice')).toHaveText('source default: new viewers get sqrt');
    const b = await openPlayer(browser);
    await expect(controller(b.id)).toHaveValue('sqrt');
    await b.page.close();
  } finally {
    await request.post('/api/streams/default/controller', { headers: operatorHeaders(), data: { controller: 'mkc' } });
    await a.page.close();
  }
});
