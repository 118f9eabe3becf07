/**
 * Keyframes on demand, end to end, against a server of its own whose periodic
 * keyframes are 20 s apart: a viewer joining between them starts from the
 * keyframe its join asked for, not from the next periodic one.
 */
import { expect, test } from '@playwright/test';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { getOnce } from '../src/processResources';
import { startServer, type RunningServer } from '../src/serverProcess';

const KEYFRAME_INTERVAL_FRAMES = 600;
let server: RunningServer | undefined;


async function framesIngested(): Promise<number> {
  const { streams } = JSON.parse((await getOnce(`${server!.url}/api/streams`)).body) as { streams: Array<{ id: string; state: string; framesIngested: number }> };
  const s = streams.find((x) => x.id === 'default');
  return s?.state === 'running' ? s.framesIngested : 0;
}

/** A counter of the default stream in /metrics (0 when absent). */
async function counter(name: string, labels = ''): Promise<number> {
  const { body } = await getOnce(`${server!.url}/metrics`, operatorHeaders());
  const m = new RegExp(`^${name}\\{stream="default"${labels}\\} (\\d+)$`, 'm').exec(body);
  return m ? Number(m[1]) : 0;
}

test.afterAll(async () => {
  await server?.stop();
});

test('a viewer joining between periodic keyframes plays from a keyframe its join asked for, long before the next periodic one', async ({ page }) => {
  test.setTimeout(90_000);
  server = await startServer({
    env: {
      OPERATOR_TOKEN: E2E_OPERATOR_TOKEN,
      SOURCE: 'lavfi:testsrc2=size=640x360:rate=30',
      KEYFRAME_INTERVAL_FRAMES: String(KEYFRAME_INTERVAL_FRAMES),
      MKC_INITIAL_KBPS: '100000',
    },
    onLog: () => {},
  });
  // 2 s in: the stream's only keyframe so far is its first frame; the next periodic one is frame 600, 18 s away.
  await expect.poll(framesIngested, { timeout: 30_000 }).toBeGreaterThanOrEqual(60);
  const joinedAt = await framesIngested();
  expect(joinedAt).toBeLessThan(KEYFRAME_INTERVAL_FRAMES / 2);
  const t0 = Date.now();
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 40_000 });
  const playingMs = Date.now() - t0;
  const playingAt = await framesIngested();
  test.info().annotations.push({ type: 'measured', description: JSON.stringify({ joinedAtFrame: joinedAt, playingAtFrame: playingAt, pageLoadToPlayingMs: playingMs }) });
  // The first decoded frame came before the stream reached its periodic keyframe: it was the one asked for.
  expect(playingAt).toBeLessThan(KEYFRAME_INTERVAL_FRAMES);
  expect(await counter('pels_keyframe_requests_total', ',reason="join"')).toBe(1);
  expect(await counter('pels_keyframes_forced_total')).toBeGreaterThanOrEqual(1);
});
