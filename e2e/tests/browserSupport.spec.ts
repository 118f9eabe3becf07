/**
 * A browser that lacks what the player needs gets told exactly what is
 * missing and how to fix it, and the player does not try to connect. The
 * features are taken away before the page's scripts run; the page itself is
 * the suite's server on loopback (a secure context). The page outside a
 * secure context is in otherMachines.spec.ts, at a non-loopback address.
 */
import { expect, test } from '@playwright/test';


const CASES = [
  { missing: ['VideoDecoder'], text: 'This browser has no WebCodecs (VideoDecoder), which decodes the video. Open the page in a current Chromium-based browser' },
  {
    missing: ['RTCRtpScriptTransform'],
    text: 'This browser has no WebRTC Encoded Transform (RTCRtpScriptTransform), which hands the player the frames of the three color streams. Open the page in a current Chromium-based browser',
  },
  { missing: ['VideoDecoder', 'RTCRtpScriptTransform'], text: 'This browser has no WebCodecs (VideoDecoder), which decodes the video, and no WebRTC Encoded Transform (RTCRtpScriptTransform)' },
];

for (const { missing, text } of CASES) {
  test(`without ${missing.join(' and ')} the player says what is missing and how to fix it, and does not connect`, async ({ page }) => {
    await page.addInitScript((names) => names.forEach((n) => delete (window as unknown as Record<string, unknown>)[n]), missing);
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto('/');
    await page.waitForFunction(() => window.pels?.state === 'unsupported');
    const notice = await page.evaluate(() => window.pels?.notice);
    expect(notice?.cause).toBe('unsupported');
    expect(notice?.text).toContain(text);
    await expect(page.getByTestId('video-notice')).toContainText(text);
    await page.waitForTimeout(1000);
    expect(sockets).toEqual([]);
  });
}
