/**
 * Go live over RTMP: a server of this file's own with RTMP=on. The operator
 * makes a live stream and gets its key (kept hashed); a player of the stream
 * waits for the broadcast, then plays what FFmpeg publishes, its sound too. A wrong key and a
 * second publisher are refused and counted; a publisher that drops and comes
 * back resumes the same stream, and the player keeps its session; a revoked
 * key cuts the publisher off; a rotated key survives a restart. Over SRT
 * (SRT=on too): the key in the streamid publishes, a wrong one is refused in
 * the handshake.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { OperatorSnapshot, OperatorStream, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import { publishRtmp, publishSrt, type LivePublisher, type PublishOptions } from '../src/livePublisher';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { freePort, startServer, type RunningServer } from '../src/serverProcess';

// Each test goes on from the state the one before left.
test.describe.configure({ mode: 'serial' });

let stateDir: string;
let rtmpPort: number;
let srtPort: number;
/** The server's log, attached to a failed test. */
const logs: string[] = [];
let server: RunningServer;
const publishers: LivePublisher[] = [];

async function start(): Promise<void> {
  server = await startServer({
    env: { SOURCE: 'lavfi:testsrc2=size=320x180:rate=30', STATE_DIR: stateDir, OPERATOR_TOKEN: E2E_OPERATOR_TOKEN, RTMP: 'on', RTMP_PORT: String(rtmpPort), SRT: 'on', SRT_PORT: String(srtPort), PUBLISH_RECONNECT_S: '30', LOG_LEVEL: 'info' },
    onLog: (line) => logs.push(line),
  });
}

test.beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'pels-e2e-live-'));
  rtmpPort = await freePort();
  srtPort = await freePort();
  await start();
});

test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('server log', { body: logs.join('\n'), contentType: 'text/plain' });
});

test.afterAll(async () => {
  for (const p of publishers) p.kill();
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...operatorHeaders(), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as T };
}

async function liveStream(id: string): Promise<OperatorStream> {
  return (await call<OperatorSnapshot>('GET', '/api/operator/snapshot')).json.streams.find((s) => s.id === id)!;
}

async function refusedCount(reason: string, protocol = 'rtmp'): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: operatorHeaders() })).text();
  return Number(new RegExp(`pels_publish_refused_total\\{protocol="${protocol}",reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
}

function publish(key: string, o: PublishOptions = {}): LivePublisher {
  const p = publishRtmp(`rtmp://127.0.0.1:${rtmpPort}/live/${key}`, o);
  publishers.push(p);
  return p;
}

async function hook(page: Page) {
  return page.evaluate(() => {
    const h = window.pels;
    return { state: h?.state, viewerId: h?.viewerId, streamState: h?.streamState, notice: h?.notice?.text, frames: h?.stats().framesDecoded.total ?? 0 };
  });
}

async function decodesMore(page: Page): Promise<void> {
  const before = (await hook(page)).frames;
  await page.waitForFunction((n) => (window.pels?.stats().framesDecoded.total ?? 0) >= n + 30, before, { timeout: 20_000 });
}

test('RTMP: a live stream waits for its broadcast, plays what FFmpeg publishes, refuses a wrong key and a second publisher, resumes after a drop with the player\'s session kept', async ({ page }) => {
  test.setTimeout(240_000);
  const made = await call<{ stream: OperatorStream } & StreamKeyAnswer>('POST', '/api/streams', { id: 'show', name: 'The show', source: 'live:' });
  expect(made.status).toBe(200);
  const { key, publish: urls } = made.json;
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(urls.rtmp).toBe(`rtmp://127.0.0.1:${rtmpPort}/live/${key}`);
  expect(made.json.stream.live).toEqual({ keySet: true, takeover: false, publisher: null });
  // Kept hashed: the state file never holds the key.
  const stateText = readFileSync(join(stateDir, 'state.json'), 'utf8');
  expect(stateText).not.toContain(key);
  expect(stateText).toMatch(/"keySha256":"[0-9a-f]{64}"/);

  await page.goto(`${server.url}/?stream=show`);
  await page.waitForFunction(() => window.pels?.streamState === 'waiting', null, { timeout: 20_000 });
  await expect(page.getByText('Waiting for the broadcast')).toBeVisible();

  // Stamping the wall clock: the server takes its timestamps as capture times, and the player measures from capture too.
  const first = publish(key, { stampWallClock: true });
  const publishedAt = Date.now();
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  console.log(`publish start to the player's first frame: ${Date.now() - publishedAt} ms (FFmpeg start and connect included)`);
  const { viewerId } = await hook(page);
  await decodesMore(page);
  expect((await liveStream('show')).live?.publisher?.protocol).toBe('rtmp');
  // Live latency: each frame's entry at the server to its display, in the player's stats and, reported, on the dashboard.
  await page.waitForFunction(() => window.pels?.stats().latencyMs != null, null, { timeout: 20_000 });
  const latency = await page.evaluate(() => window.pels!.stats().latencyMs!);
  console.log(`RTMP live latency (entry at the server to display): p50 ${latency.p50} ms, p95 ${latency.p95} ms`);
  expect(latency.p50).toBeGreaterThan(0);
  expect(latency.p95).toBeGreaterThanOrEqual(latency.p50);
  // From capture, and by stage: the frames' times reach the player (they ride in the PSNR rows, which a live stream once lacked).
  await page.waitForFunction(() => window.pels?.stats().latencyFromCaptureMs != null && window.pels.stats().latencyStagesMs?.ingest != null, null, { timeout: 20_000 });
  const fromCapture = await page.evaluate(() => ({ ...window.pels!.stats().latencyFromCaptureMs!, stages: window.pels!.stats().latencyStagesMs! }));
  console.log(`RTMP live latency from capture: p50 ${fromCapture.p50} ms, p95 ${fromCapture.p95} ms; stages ${JSON.stringify(fromCapture.stages)}`);
  expect(Number.isFinite(fromCapture.p50) && fromCapture.p50 > 0).toBe(true);
  expect(fromCapture.p95).toBeGreaterThanOrEqual(fromCapture.p50);
  await expect(page.getByTestId('live-latency')).toHaveText(/\d+ ms \(p95 \d+\)/);
  await expect
    .poll(async () => (await call<OperatorSnapshot>('GET', '/api/operator/snapshot')).json.viewers.find((v) => v.streamId === 'show')?.display?.latencyMs?.p50 ?? null, { timeout: 20_000 })
    .toBeGreaterThan(0);
  // The publisher's AAC reaches the player as Opus: over a second of 20 ms packets.
  await page.waitForFunction(() => (window.pels?.stats().audio?.packetsReceived ?? 0) >= 50, null, { timeout: 20_000 });

  // A wrong key: refused before any media, and counted.
  const wrong = publishRtmp(`rtmp://127.0.0.1:${rtmpPort}/live/${'x'.repeat(43)}`, { seconds: 5 });
  expect((await wrong.exited).code).not.toBe(0);
  expect(await refusedCount('bad_key')).toBe(1);
  // A second publisher with the right key: refused while the first sends (takeover is off).
  const second = publish(key);
  expect((await second.exited).code).not.toBe(0);
  expect(await refusedCount('busy')).toBe(1);
  await decodesMore(page);

  // The publisher drops: the player says the broadcast is reconnecting and keeps its session; a new publisher resumes it.
  first.kill();
  await page.waitForFunction(() => window.pels?.streamState === 'reconnecting', null, { timeout: 20_000 });
  await expect(page.getByText('The broadcast is reconnecting')).toBeVisible();
  publish(key);
  await page.waitForFunction(() => window.pels?.streamState === 'running', null, { timeout: 30_000 });
  await decodesMore(page);
  const after = await hook(page);
  expect(after.viewerId).toBe(viewerId);
  expect(after.state).toBe('playing');
});

test('takeover, revoke and rotate: a new publisher takes over when allowed; a revoked key cuts the publisher off; a rotated key publishes after a restart', async () => {
  test.setTimeout(180_000);
  expect((await call('PUT', '/api/streams/show/takeover', { allow: true })).status).toBe(200);
  const rotated = await call<StreamKeyAnswer>('POST', '/api/streams/show/key');
  expect(rotated.status).toBe(200);
  const taker = publish(rotated.json.key);
  await expect.poll(async () => (await liveStream('show')).live?.publisher !== null && (await liveStream('show')).state, { timeout: 30_000 }).toBe('running');
  // The publisher of the first test (on the old key) was taken over: its connection is closed.
  await expect.poll(() => publishers.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null).length, { timeout: 15_000 }).toBe(1);

  expect((await call('DELETE', '/api/streams/show/key')).status).toBe(200);
  const cut = await Promise.race([taker.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
  expect(cut).toBe('exited');
  expect((await liveStream('show')).live).toMatchObject({ keySet: false, publisher: null });

  const fresh = await call<StreamKeyAnswer>('POST', '/api/streams/show/key');
  await server.stop();
  await start();
  expect((await liveStream('show')).live).toMatchObject({ keySet: true, takeover: true, publisher: null });
  expect((await liveStream('show')).state).toBe('waiting');
  const p = publish(fresh.json.key);
  await expect.poll(async () => (await liveStream('show')).state, { timeout: 30_000 }).toBe('running');
  p.kill();
});

test('SRT: FFmpeg publishes with the key in its streamid, the player plays it with its sound; a wrong key is refused in the handshake and counted', async ({ page }) => {
  test.setTimeout(180_000);
  const made = await call<{ stream: OperatorStream } & StreamKeyAnswer>('POST', '/api/streams', { id: 'srtshow', source: 'live:' });
  expect(made.status).toBe(200);
  const { key, publish: urls } = made.json;
  expect(urls.srt).toBe(`srt://127.0.0.1:${srtPort}?streamid=${key}`);
  await page.goto(`${server.url}/?stream=srtshow`);
  await page.waitForFunction(() => window.pels?.streamState === 'waiting', null, { timeout: 20_000 });

  const p = publishers[publishers.push(publishSrt(urls.srt!)) - 1]!;
  const publishedAt = Date.now();
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  console.log(`SRT publish start to the player's first frame: ${Date.now() - publishedAt} ms (FFmpeg start and connect included)`);
  await decodesMore(page);
  await page.waitForFunction(() => (window.pels?.stats().audio?.packetsReceived ?? 0) >= 50, null, { timeout: 20_000 });
  expect((await liveStream('srtshow')).live?.publisher?.protocol).toBe('srt');
  await page.waitForFunction(() => window.pels?.stats().latencyMs != null, null, { timeout: 20_000 });
  const latency = await page.evaluate(() => window.pels!.stats().latencyMs!);
  console.log(`SRT live latency (entry at the server to display): p50 ${latency.p50} ms, p95 ${latency.p95} ms`);
  expect(latency.p50).toBeGreaterThan(0);

  const wrong = publishSrt(`srt://127.0.0.1:${srtPort}?streamid=${'x'.repeat(43)}`, { seconds: 5 });
  expect((await wrong.exited).code).not.toBe(0);
  expect(await refusedCount('bad_key', 'srt')).toBe(1);
  await decodesMore(page);
  p.kill();
  await page.waitForFunction(() => window.pels?.streamState === 'reconnecting', null, { timeout: 20_000 });
});

test('bad input: a live source with more after "live:", a key action on a stream that is not live, a malformed takeover body', async () => {
  expect((await call<{ error: { message: string } }>('POST', '/api/streams', { id: 'bad', source: 'live:extra' })).json.error.message).toMatch(/"live:" alone/);
  expect((await call('POST', '/api/streams/default/key')).status).toBe(409);
  expect((await call('PUT', '/api/streams/show/takeover', { allow: 'yes' })).status).toBe(400);
  expect((await call('POST', '/api/streams/nope/key')).status).toBe(404);
});
