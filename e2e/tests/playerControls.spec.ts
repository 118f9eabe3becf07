/**
 * The controls people expect, in Chromium against the real server: a phone-sized
 * page has the video and the controls and scrolls only down; space pauses and
 * plays, `f`, the fullscreen button and a double-click go fullscreen and back; the quality menu pins a
 * rendition at the server and Auto gives the choice back to the viewer's rate;
 * where the browser blocks sound without a gesture, the sound starts muted under
 * an Unmute button, and a click on it lets it be heard.
 * Each state is saved as a screenshot in the test's output (docs/img has them).
 */
import { expect, test, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import type { ViewerState } from '@pels/shared/protocol/api';
import { operatorHeaders } from '../src/operatorToken';

/** Screenshots wait this long after playing starts: the coverage strip and the PSNR mean fill in. */
const SETTLE_MS = 5000;


async function startPlaying(page: Page): Promise<void> {
  await page.goto('/');
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
}

const hook = (page: Page) =>
  page.evaluate(() => {
    const h = window.pels!;
    return { state: h.state, viewerId: h.viewerId, decoded: h.stats().framesDecoded.total, rendition: h.stats().rendition };
  });

/** The page as docs/img has it: a JPEG in the test's output. */
const shot = (page: Page, info: TestInfo, name: string) => page.screenshot({ path: info.outputPath(`${name}.jpg`), type: 'jpeg', quality: 80 });

/** The page's width beyond the viewport: 0 when nothing scrolls sideways. */
const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function viewerRendition(request: APIRequestContext, id: string): Promise<ViewerState['rendition'] | undefined> {
  const res = await request.get('/api/viewers', { headers: operatorHeaders() });
  return ((await res.json()) as { viewers: ViewerState[] }).viewers.find((v) => v.id === id)?.rendition;
}

test.describe('on a phone (390 x 844)', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });

  test('the page has the video and the controls, and no horizontal scroll, with the live quality and the lab panel open too', async ({ page }, info) => {
    await startPlaying(page);
    const video = page.locator('.video-box canvas');
    await expect(video).toBeVisible();
    const box = (await video.boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // The default stream has sound: a phone gets the mute button, and sets the volume with its own buttons (docs/player.md).
    for (const control of ['play-pause', 'mute', 'quality-button', 'live-quality-toggle', 'fullscreen']) {
      await expect(page.getByTestId(control)).toBeVisible();
      const b = (await page.getByTestId(control).boundingBox())!;
      expect(b.x + b.width, control).toBeLessThanOrEqual(390);
    }
    await expect(page.getByTestId('volume')).toBeHidden();
    // The live quality waits for its toggle on a phone.
    await expect(page.getByTestId('live-quality')).toHaveCount(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await shot(page, info, 'player-phone');

    await page.getByTestId('live-quality-toggle').click();
    await expect(page.getByTestId('live-quality')).toHaveAttribute('data-placement', 'below');
    await expect(page.getByTestId('live-psnr')).toHaveText(/^\d+\.\d dB$/, { timeout: 10_000 });
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.waitForTimeout(SETTLE_MS);
    await shot(page, info, 'player-phone-quality');

    await page.getByText('Lab: layers, coverage, charts, statistics').click();
    await expect(page.getByTestId('chart-psnr')).toBeVisible();
    await page.waitForTimeout(500); // the charts take their width
    expect(await sidewaysOverflow(page)).toBe(0);
  });
});

test('space pauses (the stream is left, the last frame stays) and plays again; f, the button and a double-click go fullscreen and back', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await startPlaying(page);
  await expect(page.getByTestId('live-quality')).toHaveAttribute('data-placement', 'side');
  await expect(page.getByTestId('live-psnr')).toHaveText(/^\d+\.\d dB$/, { timeout: 10_000 });
  await page.waitForTimeout(SETTLE_MS);
  await shot(page, info, 'player-wide');
  const first = await hook(page);

  await page.keyboard.press(' ');
  await expect.poll(async () => (await hook(page)).state).toBe('paused');
  await expect(page.getByTestId('play-pause')).toHaveAttribute('aria-label', 'Play');
  await expect(page.getByTestId('big-play')).toBeVisible();
  await shot(page, info, 'player-paused');
  // Left for good: the server has no such viewer.
  await expect.poll(() => viewerRendition(page.request, first.viewerId!)).toBeUndefined();

  await page.keyboard.press(' ');
  await expect.poll(async () => (await hook(page)).state, { timeout: 30_000 }).toBe('playing');
  const again = await hook(page);
  expect(again.viewerId).not.toBe(first.viewerId);
  await expect(page.getByTestId('play-pause')).toHaveAttribute('aria-label', 'Pause');

  const fullscreenId = () => page.evaluate(() => document.fullscreenElement?.getAttribute('data-testid') ?? null);
  await page.keyboard.press('f');
  await expect.poll(fullscreenId).toBe('watch');
  await expect(page.getByTestId('live-quality')).toHaveAttribute('data-placement', 'overlay');
  await expect(page.getByTestId('fullscreen')).toHaveAttribute('aria-label', 'Exit full screen');
  // Over the picture the coverage strip has a faint ground, not the side panel's white block.
  const stripGround = () => page.getByTestId('live-coverage').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await stripGround()).not.toBe('rgb(255, 255, 255)');
  await page.waitForTimeout(SETTLE_MS);
  await shot(page, info, 'player-fullscreen');
  // Each way in works each way out: f, the button, a double-click.
  await page.getByTestId('fullscreen').click();
  await expect.poll(fullscreenId).toBeNull();
  await expect(page.getByTestId('fullscreen')).toHaveAttribute('aria-label', 'Full screen');
  await expect(page.getByTestId('live-quality')).toHaveAttribute('data-placement', 'side');
  expect(await stripGround()).toBe('rgb(255, 255, 255)');

  await page.getByTestId('video-frame').dblclick();
  await expect.poll(fullscreenId).toBe('watch');
  await page.getByTestId('video-frame').dblclick();
  await expect.poll(fullscreenId).toBeNull();

  await page.getByTestId('fullscreen').click();
  await expect.poll(fullscreenId).toBe('watch');
  await page.keyboard.press('f');
  await expect.poll(fullscreenId).toBeNull();
});

test('the quality menu pins the lower size at the server, the player decodes it, and Auto gives the choice back to the rate', async ({ page }, info) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await startPlaying(page);
  const { viewerId } = await hook(page);
  // On the open loopback link the rate carries the full size.
  await expect.poll(async () => (await viewerRendition(page.request, viewerId!))?.current, { timeout: 20_000 }).toBe(0);
  await page.waitForTimeout(SETTLE_MS);

  await page.getByTestId('quality-button').click();
  const menu = page.getByTestId('quality-menu');
  await expect(menu.getByRole('menuitemradio')).toHaveText([/Auto/, /Full size\s*640×360/, /Lower size\s*320×180/]);
  await expect(menu.getByRole('menuitemradio', { name: /Auto/ })).toHaveAttribute('aria-checked', 'true');
  await shot(page, info, 'player-quality-menu');

  await menu.getByRole('menuitemradio', { name: /Lower size/ }).click();
  await expect(menu).toHaveCount(0);
  await expect(page.getByTestId('quality-button')).toHaveText('Lower size');
  await expect.poll(() => viewerRendition(page.request, viewerId!), { timeout: 20_000 }).toMatchObject({ pinned: 1, current: 1 });
  await expect.poll(async () => (await hook(page)).rendition, { timeout: 10_000 }).toBe(1);
  // Held: the rate would carry the full size, the pin keeps the lower one.
  await page.waitForTimeout(5000);
  expect(await viewerRendition(page.request, viewerId!)).toMatchObject({ pinned: 1, current: 1 });

  await page.getByTestId('quality-button').click();
  await page.getByTestId('quality-menu').getByRole('menuitemradio', { name: /Auto/ }).click();
  await expect.poll(async () => (await viewerRendition(page.request, viewerId!))?.pinned).toBeNull();
  // Released: on this open link the server gives the full size again (in the rate controller's start-up, as here, or by the rate).
  await expect.poll(async () => (await viewerRendition(page.request, viewerId!))?.current, { timeout: 45_000 }).toBe(0);
  await expect(page.getByTestId('quality-button')).toHaveText('Auto (640×360)', { timeout: 10_000 });
});

/** Adds a lavfi stream (a frame size no other test uses), waits until it runs; removed by the returned function. */
async function addStream(request: APIRequestContext, id: string, source: string): Promise<() => Promise<void>> {
  const res = await request.post('/api/streams', { headers: operatorHeaders(), data: { id, source } });
  expect(res.status(), await res.text()).toBe(200);
  await expect
    .poll(async () => ((await (await request.get('/api/streams')).json()) as { streams: { id: string; state: string }[] }).streams.find((s) => s.id === id)?.state, { timeout: 20_000 })
    .toBe('running');
  return async () => void (await request.delete(`/api/streams/${id}`, { headers: operatorHeaders() }));
}

const playAt = async (page: Page, stream: string) => {
  await page.goto(`/?stream=${stream}`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
};

test('mute and volume show for a stream with sound, m mutes and unmutes; a stream without sound has none', async ({ page, request }, info) => {
  const removeSound = await addStream(request, 'e2e-sound', 'lavfi:testsrc2=size=208x112:rate=30|sine=frequency=440');
  const removeSilent = await addStream(request, 'e2e-silent', 'lavfi:testsrc2=size=224x112:rate=30');
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await playAt(page, 'e2e-sound');
    const mute = page.getByTestId('mute');
    await expect(mute).toHaveAttribute('aria-label', 'Mute', { timeout: 10_000 });
    await expect(page.getByTestId('volume')).toBeVisible();
    await shot(page, info, 'player-sound');
    await page.keyboard.press('m');
    await expect(mute).toHaveAttribute('aria-label', 'Unmute');
    await page.keyboard.press('m');
    await expect(mute).toHaveAttribute('aria-label', 'Mute');
    await page.getByTestId('volume').fill('0.25');
    await expect(page.getByTestId('volume')).toHaveValue('0.25');

    await playAt(page, 'e2e-silent');
    await expect(page.getByTestId('play-pause')).toBeVisible();
    await expect(mute).toHaveCount(0);
    await expect(page.getByTestId('volume')).toHaveCount(0);
  } finally {
    await removeSound();
    await removeSilent();
  }
});

/** The player's sound as the test hook tells it, with whether the page refused an unmuted play() (the rule below). */
const sound = (page: Page) =>
  page.evaluate(() => {
    const a = window.pels!.audio();
    const refused = (window as unknown as { refusedPlays?: number }).refusedPlays ?? 0;
    return { muted: a.state.muted, blocked: a.state.blocked, track: a.track !== null, element: a.element, refused: refused > 0 };
  });

test('where the browser blocks sound without a gesture, the sound starts muted under an Unmute button; a click on it lets it be heard', async ({ page, request }, info) => {
  // Headless Chromium lets every page play sound, whatever --autoplay-policy says (tried: document-user-activation-required,
  // user-gesture-required, headless=new). So the page gets the rule of Chromium's desktop policy itself: an unmuted
  // element's play() is refused with NotAllowedError until the user has pressed on the page (a trusted pointer or key
  // event: Playwright's click is one, a script's is not; a rule read from navigator.userActivation refused nothing here).
  await page.addInitScript(() => {
    const w = window as unknown as { refusedPlays: number };
    w.refusedPlays = 0;
    let gesture = false;
    for (const type of ['pointerdown', 'keydown']) {
      window.addEventListener(type, (e) => (gesture ||= e.isTrusted), { capture: true });
    }
    const play = HTMLMediaElement.prototype.play;
    HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
      if (!this.muted && !gesture) {
        w.refusedPlays++;
        return Promise.reject(new DOMException("play() failed because the user didn't interact with the document first.", 'NotAllowedError'));
      }
      return play.call(this);
    };
  });
  const removeSound = await addStream(request, 'e2e-autoplay', 'lavfi:testsrc2=size=240x112:rate=30|sine=frequency=440');
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await playAt(page, 'e2e-autoplay');
    // The player's unmuted play() was refused, and it plays on muted, saying the sound is blocked.
    await expect
      .poll(() => sound(page), { timeout: 10_000 })
      .toEqual({ muted: true, blocked: true, track: true, element: { muted: true, paused: false }, refused: true });
    const unmute = page.getByTestId('unmute');
    await expect(unmute).toBeVisible();
    await expect(page.getByTestId('mute')).toHaveAttribute('aria-label', 'Unmute');
    await shot(page, info, 'player-unmute');
    await unmute.click();
    await expect.poll(() => sound(page)).toEqual({ muted: false, blocked: false, track: true, element: { muted: false, paused: false }, refused: true });
    await expect(unmute).toHaveCount(0);
    await expect(page.getByTestId('mute')).toHaveAttribute('aria-label', 'Mute');
  } finally {
    await removeSound();
  }
});
