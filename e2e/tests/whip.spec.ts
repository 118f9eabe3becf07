/**
 * Go live over WHIP: a server of this file's own with WHIP=on. Chromium
 * publishes H.264 and Opus to a live stream as OBS does (bearer key, SDP
 * offer, 201 with Location); the player plays it (decodes, no checksum
 * mismatch) with the publisher's Opus passed through. A wrong key is
 * refused 401 and a second publisher 409; DELETE on the Location ends the
 * publish and the player keeps its session while the broadcast reconnects; a
 * new publish resumes it; a publisher that goes without a DELETE is dropped
 * too. A malformed offer is refused 400 and leaves nothing behind. The
 * frames are checked against the server's own decode, and an ingest that
 * fails mid-stream restarts on the publisher's same connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import type { OperatorSnapshot, OperatorStream, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { ingestFfmpegPid, serverChildPids } from '../src/serverChildren';
import { startServer, type RunningServer } from '../src/serverProcess';
import { publishWhip, whipState } from '../src/whipPublisher';

type Hook = { pels?: { state: string; viewerId?: string; streamState?: string; stats(): { framesDecoded: { total: number }; checksumMismatches: number; checksumsCompared: number; psnr: { mean: number | null }; audio: { packetsReceived: number } | null; latencyFromCaptureMs: { p50: number; p95: number } | null; latencyStagesMs: { publisher: number | null } | null } } };

test.describe.configure({ mode: 'serial' });

let stateDir: string;
const logs: string[] = [];
let server: RunningServer;
let key: string;
/** When the server logged the publisher's first keyframe (this process's clock). */
let firstKeyframeAt = 0;

test.beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'pels-e2e-whip-'));
  server = await startServer({
    env: { SOURCE: 'lavfi:testsrc2=size=320x180:rate=30', STATE_DIR: stateDir, OPERATOR_TOKEN: E2E_OPERATOR_TOKEN, WHIP: 'on', RTC_LISTEN_IP: '127.0.0.1', MEDIA_WORKERS: '1', LOG_LEVEL: 'info' },
    onLog: (line) => {
      logs.push(line);
      if (line.includes('WHIP first keyframe')) firstKeyframeAt ||= Date.now();
    },
  });
});

test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('server log', { body: logs.join('\n'), contentType: 'text/plain' });
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${server.url}${path}`, { method, headers: { ...operatorHeaders(), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: (await res.json()) as T };
}

async function stream(id: string): Promise<OperatorStream> {
  return (await call<OperatorSnapshot>('GET', '/api/operator/snapshot')).json.streams.find((s) => s.id === id)!;
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: operatorHeaders() })).text();
  return Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
}

/** A page of its own at the server's origin, to publish from. */
async function publisherPage(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}/api/health`);
  return page;
}

async function hook(page: Page) {
  return page.evaluate(() => {
    const h = (window as unknown as Hook).pels;
    const s = h?.stats();
    return { state: h?.state, viewerId: h?.viewerId, streamState: h?.streamState, frames: s?.framesDecoded.total ?? 0, mismatches: s?.checksumMismatches ?? -1, compared: s?.checksumsCompared ?? 0 };
  });
}

async function decodesMore(page: Page): Promise<void> {
  const before = (await hook(page)).frames;
  await page.waitForFunction((n) => ((window as unknown as Hook).pels?.stats().framesDecoded.total ?? 0) >= n + 30, before, { timeout: 20_000 });
}

// A test that fails half way leaves its publisher pages open, and the stream busy for the next: close them.
test.afterEach(async ({ browser }) => {
  for (const context of browser.contexts()) await context.close().catch(() => undefined);
});

test('WHIP: Chromium publishes H.264 and Opus, the player plays it; a wrong key is refused 401, a second publisher 409; DELETE ends the publish and a new one resumes the stream with the player\'s session kept', async ({ page, browser }) => {
  test.setTimeout(240_000);
  const made = await call<StreamKeyAnswer>('POST', '/api/streams', { id: 'show', name: 'The show', source: 'live:' });
  expect(made.status).toBe(200);
  key = made.json.key;
  expect(made.json.publish.whip).toBe(`${server.url}/whip/show`);

  await page.goto(`${server.url}/?stream=show`);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.streamState === 'waiting', null, { timeout: 20_000 });

  const publisher = await publisherPage(browser);
  const publishedAt = Date.now();
  const first = await publishWhip(publisher, `${server.url}/whip/show`, key);
  expect(first.status, first.body).toBe(201);
  expect(first.location).toMatch(/^\/whip\/show\/[A-Za-z0-9_-]{22}$/);
  expect(first.body).toMatch(/^v=0\r\n/);
  expect(first.body).toMatch(/a=rtpmap:\d+ H264\/90000/);
  expect(first.body).toMatch(/a=rtpmap:\d+ opus\/48000\/2/);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.state === 'playing', null, { timeout: 30_000 });
  const playingAt = Date.now();
  await page.waitForFunction(() => ((window as unknown as Hook).pels?.stats().framesDecoded.total ?? 0) > 0, null, { timeout: 10_000 });
  console.log(`WHIP POST to the publisher's first keyframe at the server: ${firstKeyframeAt - publishedAt} ms; to the player playing: ${playingAt - publishedAt} ms; first keyframe to the first frame decoded: ${Date.now() - firstKeyframeAt} ms`);
  expect(await whipState(publisher)).toBe('connected');
  const { viewerId } = await hook(page);
  await decodesMore(page);
  expect((await stream('show')).live?.publisher?.protocol).toBe('whip');
  // The publisher's Opus reaches the player as it came: the ingest copies it (no decode, no encode).
  await page.waitForFunction(() => ((window as unknown as Hook).pels?.stats().audio?.packetsReceived ?? 0) >= 50, null, { timeout: 20_000 });
  expect(logs.some((l) => l.includes('"audio":"copy"') && l.includes('ingest started'))).toBe(true);
  // The publisher's capture times (abs-capture-time) reach the player: latency from publish to display, the publisher's stage in it.
  await page.waitForFunction(() => (window as unknown as Hook).pels?.stats().latencyStagesMs?.publisher != null, null, { timeout: 20_000 });
  const latency = await page.evaluate(() => ({ ...(window as unknown as Hook).pels!.stats().latencyFromCaptureMs!, stages: (window as unknown as Hook).pels!.stats().latencyStagesMs }));
  console.log(`WHIP live latency from capture: p50 ${latency.p50} ms, p95 ${latency.p95} ms; stages ${JSON.stringify(latency.stages)}`);
  expect(latency.p50).toBeGreaterThan(0);

  // A wrong key and a key of no stream: 401, counted; the key of another path: 401 too.
  const other = await publisherPage(browser);
  const wrong = await publishWhip(other, `${server.url}/whip/show`, 'x'.repeat(43));
  expect(wrong.status).toBe(401);
  expect(wrong.location).toBeNull();
  expect((await publishWhip(other, `${server.url}/whip/default`, key)).status).toBe(401);
  expect(await metric('pels_publish_refused_total{protocol="whip",reason="bad_key"}')).toBe(2);
  // A second publisher with the right key: 409 while the first sends.
  const second = await publishWhip(other, `${server.url}/whip/show`, key);
  expect(second.status).toBe(409);
  expect(await metric('pels_publish_refused_total{protocol="whip",reason="busy"}')).toBe(1);
  await decodesMore(page);
  // Frames checked against the server's own decode: the last test.
  const playing = await hook(page);
  expect(playing.mismatches).toBe(0);

  // DELETE on the Location ends the publish: the player waits for the broadcast to come back, in the same session.
  const routersLive = await metric('pels_mediasoup_routers');
  const del = await fetch(`${server.url}${first.location}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
  expect(del.status).toBe(200);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.streamState === 'reconnecting', null, { timeout: 20_000 });
  expect(await metric('pels_mediasoup_routers')).toBe(routersLive - 1);
  expect((await fetch(`${server.url}${first.location}`, { method: 'DELETE' })).status).toBe(404);
  const again = await publishWhip(other, `${server.url}/whip/show`, key);
  expect(again.status, again.body).toBe(201);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.streamState === 'running', null, { timeout: 30_000 });
  await decodesMore(page);
  const after = await hook(page);
  expect(after.viewerId).toBe(viewerId);
  expect(after.state).toBe('playing');
  expect(after.mismatches).toBe(0);

  // The publisher goes without a DELETE (its browser closes): its session ends (DTLS close, or ICE consent lost after 10 s) and the stream reconnects.
  await other.context().close();
  await page.waitForFunction(() => (window as unknown as Hook).pels?.streamState === 'reconnecting', null, { timeout: 30_000 });
  expect(await metric('pels_mediasoup_routers')).toBe(routersLive - 1);
  expect((await hook(page)).viewerId).toBe(viewerId);
  await publisher.context().close();
});

test('bad input: a malformed offer, an offer without H.264 and a wrong content type are refused 400 with what is wrong, and leave no router, transport or process behind; OPTIONS answers; PATCH is 405', async ({ browser }) => {
  // The stream is free: a publisher the last test left is gone (a closed page without DELETE: up to ICE consent's 10 s).
  await expect.poll(async () => (await stream('show')).live?.publisher ?? null, { timeout: 20_000 }).toBeNull();
  const routers = await metric('pels_mediasoup_routers');
  const transports = await metric('pels_mediasoup_transports');
  const ffmpegs = serverChildPids(server.pid, 'ffmpeg').length;
  const post = (body: string, type = 'application/sdp') => fetch(`${server.url}/whip/show`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': type }, body });
  const malformed = await post('hello');
  expect(malformed.status).toBe(400);
  expect(await malformed.text()).toContain('bad SDP offer: not an SDP offer');
  const noH264 = await post('v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=sendonly\r\na=rtcp-mux\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 AA:BB\r\na=rtpmap:96 VP8/90000\r\n');
  expect(noH264.status).toBe(400);
  expect(await noH264.text()).toContain('no H.264 video');
  expect((await post('v=0', 'application/json')).status).toBe(400);
  // An offer cut after its first media line, from a browser.
  const page = await publisherPage(browser);
  const cut = await publishWhip(page, `${server.url}/whip/show`, key, { offer: 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' });
  expect(cut.status).toBe(400);
  expect(await metric('pels_publish_refused_total{protocol="whip",reason="malformed"}')).toBe(3);
  expect(await metric('pels_mediasoup_routers')).toBe(routers);
  expect(await metric('pels_mediasoup_transports')).toBe(transports);
  expect(serverChildPids(server.pid, 'ffmpeg').length).toBe(ffmpegs);
  expect((await stream('show')).live?.publisher).toBeNull();

  const options = await fetch(`${server.url}/whip/show`, { method: 'OPTIONS', headers: { origin: 'https://publisher.example', 'access-control-request-method': 'POST' } });
  expect(options.status).toBe(204);
  expect(options.headers.get('accept-post')).toBe('application/sdp');
  expect(options.headers.get('access-control-allow-headers')).toContain('authorization');
  expect((await fetch(`${server.url}/whip/show/abc`, { method: 'PATCH', body: 'a=candidate:1' })).status).toBe(405);
  await page.context().close();
});

// A WHIP stream is the heaviest case here (Chromium encodes H.264 beside the server's own streams): this checks
// that the PSNR table keeps up or drops frames, rather than falling ever further behind the player (it used to),
// and that a run whose first frame sets were dropped (one encoder a backlog behind the other, on a busy machine)
// still pairs its source planes: they were paired from the first set that came, and no row was made all run.
test("a WHIP stream's frames are checked against the server's own decode (checksums compared, PSNR shown); an ingest that fails mid-stream restarts on the same connection", async ({ page, browser }) => {
  const made = await call<StreamKeyAnswer>('POST', '/api/streams', { id: 'checked', source: 'live:' });
  expect(made.status).toBe(200);
  await page.goto(`${server.url}/?stream=checked`);
  const publisher = await publisherPage(browser);
  expect((await publishWhip(publisher, `${server.url}/whip/checked`, made.json.key)).status).toBe(201);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.state === 'playing', null, { timeout: 30_000 });
  await expect.poll(async () => (await hook(page)).compared, { timeout: 20_000 }).toBeGreaterThan(0);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.stats().psnr.mean != null, null, { timeout: 20_000 });
  const checked = await hook(page);
  const psnr = await page.evaluate(() => (window as unknown as Hook).pels!.stats().psnr.mean!);
  console.log(`WHIP frames checked: ${checked.compared} checksums of ${checked.frames} frames decoded, PSNR mean ${psnr.toFixed(1)} dB; quality planes dropped (the worker fell behind): ${logs.some((l) => l.includes('quality measurement fell behind')) ? 'yes' : 'no'}`);
  expect(checked.mismatches).toBe(0);

  // The ingest's FFmpeg dies mid-stream: a new run on the same connection (the publisher's media from its next
  // keyframe), the player in the same session decodes on and checks the new run's frames too.
  process.kill(ingestFfmpegPid(server.pid, 'matroska'), 'SIGKILL');
  await expect.poll(() => logs.some((l) => l.includes('restarting the ingest on the same connection')), { timeout: 10_000 }).toBe(true);
  await page.waitForFunction(() => (window as unknown as Hook).pels?.streamState === 'running', null, { timeout: 30_000 });
  await decodesMore(page);
  await expect.poll(async () => (await hook(page)).compared, { timeout: 20_000 }).toBeGreaterThan(checked.compared);
  const resumed = await hook(page);
  expect(resumed.viewerId).toBe(checked.viewerId);
  expect(resumed.mismatches).toBe(0);
  expect(await whipState(publisher)).toBe('connected');
  expect((await stream('checked')).live?.publisher?.protocol).toBe('whip');
});
