/**
 * The player and the dashboard under the server's Content-Security-Policy, in
 * Chromium: the player's worker, WebCodecs decoding, its WebSocket and the
 * dashboard's charts run with no violation reported, and no other site may
 * frame them.
 */
import { expect, test, type Page } from '@playwright/test';
import { E2E_OPERATOR_TOKEN } from '../src/operatorToken';


/** Collects the page's CSP violations (the event, and Chromium's console report of it). */
function violations(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return seen;
}

test('the player decodes under the policy with no violation', async ({ page }) => {
  const seen = violations(page);
  const res = await page.goto('/');
  expect(res!.headers()['content-security-policy']).toContain("default-src 'self'");
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  await page.waitForFunction(() => window.pels!.stats().framesDecoded.total > 30, null, { timeout: 30_000 });
  expect(seen).toEqual([]);
});

test('the dashboard runs live under the policy with no violation', async ({ page }) => {
  const seen = violations(page);
  await page.goto(`/dashboard#token=${encodeURIComponent(E2E_OPERATOR_TOKEN)}`);
  await expect(page.getByTestId('dash-status')).toHaveText('live');
  await page.waitForTimeout(2000); // a few snapshots drawn into the charts
  expect(seen).toEqual([]);
});

test('a page elsewhere cannot frame the player', async ({ page, baseURL }) => {
  const seen: string[] = [];
  page.on('console', (m) => seen.push(m.text()));
  // A page on another origin (about:blank's opaque one) with the player in a frame.
  await page.setContent(`<iframe src="${baseURL}/"></iframe>`);
  await expect.poll(() => seen.some((t) => /frame-ancestors/i.test(t))).toBe(true);
});
