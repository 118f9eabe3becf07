/**
 * Lip sync, measured in the page: a clip whose beeps and white flashes fall on
 * the same instants (the start of every second) plays through the server and
 * the player; the page finds each beep in the sound it plays (Web Audio on the
 * received track) and each flash on the player's canvas, and the offset
 * between them is the sync the viewer sees and hears.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startServer, type RunningServer } from '../src/serverProcess';

let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pels-e2e-avsync-'));
  const clip = join(dir, 'beep-flash.mkv');
  // 30 s: black with a white flash over [k, k + 0.1) s, silence with a 1 kHz tone over the same; AAC, so the server encodes Opus.
  execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error',
    '-f', 'lavfi', '-i', "color=c=black:s=640x360:r=30:d=30,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='lt(mod(t,1),0.1)'",
    '-f', 'lavfi', '-i', "aevalsrc='if(lt(mod(t,1),0.1),0.5*sin(2*PI*1000*t),0)':s=48000:d=30",
    '-c:v', 'mpeg2video', '-q:v', '2', '-c:a', 'aac', '-b:a', '128k', clip,
  ]);
  server = await startServer({ env: { SOURCE: clip, MEDIA_DIR: dir }, onLog: () => undefined });
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Onsets {
  beeps: number[];
  flashes: number[];
  avSyncMs: number | null;
  soundDelayMs: number | null;
}

test('the beep in the played sound and the flash on the canvas are found within 60 ms of each other, and the player reports its offset', async ({ page }) => {
  // The stream says whether it has sound once its ingest has probed the source (its first run), which a busy machine delays.
  await expect
    .poll(async () => ((await (await page.request.get(`${server.url}/api/streams`)).json()) as { streams: { audio: unknown }[] }).streams[0]?.audio, {
      timeout: 30_000,
    })
    .toEqual({ codec: 'opus', passthrough: false });
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => (window as unknown as { pels?: { state: string } }).pels?.state === 'playing', null, { timeout: 30_000 });
  await page.waitForFunction(() => (window as unknown as { pels: { audio(): { track: unknown } } }).pels.audio().track !== null, null, { timeout: 10_000 });
  // The player's own measure settles within a second or two of the sound starting.
  await page.waitForTimeout(3000);
  const onsets = await page.evaluate(async (seconds): Promise<Onsets> => {
    const pels = (window as unknown as { pels: { audio(): { track: MediaStreamTrack }; stats(): { avSyncMs: number | null; soundDelayMs: number | null } } }).pels;
    const beeps: number[] = [];
    const flashes: number[] = [];
    // Sound: each buffer's samples, timed where the context plays them, on the page's clock.
    const ctx = new AudioContext();
    const source = ctx.createMediaStreamSource(new MediaStream([pels.audio().track]));
    const proc = ctx.createScriptProcessor(256, 1, 1);
    let quietSince = -Infinity;
    proc.onaudioprocess = (e) => {
      const data = e.inputBuffer.getChannelData(0);
      const stamp = ctx.getOutputTimestamp();
      const base = (stamp.performanceTime ?? 0) + (e.playbackTime - (stamp.contextTime ?? 0)) * 1000;
      for (let i = 0; i < data.length; i++) {
        const t = base + (i / ctx.sampleRate) * 1000;
        if (Math.abs(data[i]!) > 0.1) {
          if (t - quietSince > 500) beeps.push(t);
          quietSince = Infinity;
        } else if (quietSince === Infinity) quietSince = t;
      }
    };
    source.connect(proc);
    proc.connect(ctx.destination);
    // Picture: the canvas's centre pixel at every animation frame.
    const canvas = document.querySelector('canvas')!;
    const probe = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })!;
    let bright = false;
    const done = performance.now() + seconds * 1000;
    await new Promise<void>((resolve) => {
      const frame = (t: number) => {
        probe.drawImage(canvas, canvas.width / 2, canvas.height / 2, 1, 1, 0, 0, 1, 1);
        const lit = probe.getImageData(0, 0, 1, 1).data[0]! > 128;
        if (lit && !bright) flashes.push(t);
        bright = lit;
        if (t < done) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
    await ctx.close();
    const { avSyncMs, soundDelayMs } = pels.stats();
    return { beeps, flashes, avSyncMs, soundDelayMs };
  }, 15);
  // Each flash with the beep nearest to it: they are a second apart, so within half a second is the same instant.
  const offsets = onsets.flashes.flatMap((f) => {
    const b = onsets.beeps.reduce((best, x) => (Math.abs(x - f) < Math.abs(best - f) ? x : best), Infinity);
    return Math.abs(b - f) < 500 ? [b - f] : [];
  });
  const sorted = [...offsets].sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1]!;
  const measured = JSON.stringify({ offsetsMs: offsets.map(Math.round), medianMs: Math.round(median), playerAvSyncMs: onsets.avSyncMs, soundHeldMs: onsets.soundDelayMs, beeps: onsets.beeps.length, flashes: onsets.flashes.length });
  test.info().annotations.push({ type: 'measured', description: measured });
  console.log(`measured: ${measured}`);
  expect(onsets.flashes.length, `flashes seen on the canvas: ${measured}`).toBeGreaterThanOrEqual(8);
  expect(offsets.length, `beeps heard with the flashes: ${measured}`).toBeGreaterThanOrEqual(8);
  expect(onsets.avSyncMs).not.toBeNull();
  // ITU-R BT.1359's detectability window is 45 ms sound early to 125 ms late; the player aims at +-20 ms.
  expect(Math.abs(median), `median offset of the beep from the flash: ${measured}`).toBeLessThanOrEqual(60);
});

