/**
 * The server's limits against a real server (its own process, started here
 * with small limits): too many viewers, too many sockets from one address, a
 * flood of requests, a transport that never finishes DTLS, a player that does
 * not read. Each refusal is checked in /metrics too.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { WebSocket } from 'ws';
import type { ViewerState } from '@pels/shared/protocol/api';
import { DASHBOARD_WS_PATH } from '@pels/shared/protocol/dashboard';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { startServer, type RunningServer } from '../src/serverProcess';
import { SignalingClient, type Reply } from '../src/signalingClient';

/** Nothing here plays video: a flat source keeps FFmpeg cheap. */
const SOURCE = 'lavfi:color=c=gray:size=640x360:rate=30';

async function start(limits: Record<string, string>): Promise<RunningServer> {
  return startServer({ env: { SOURCE, OPERATOR_TOKEN: E2E_OPERATOR_TOKEN, ...limits }, onLog: () => {} });
}

const wsUrl = (server: RunningServer, path = '/ws') => `${server.url.replace(/^http/, 'ws')}${path}`;

async function viewers(server: RunningServer): Promise<ViewerState[]> {
  const res = await fetch(`${server.url}/api/viewers`, { headers: operatorHeaders() });
  return ((await res.json()) as { viewers: ViewerState[] }).viewers;
}

/** A series' value in /metrics; undefined when it is not there. */
async function metric(server: RunningServer, name: string, labels: string): Promise<number | undefined> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: operatorHeaders() })).text();
  const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

const rejections = (server: RunningServer, limit: string) => metric(server, 'pels_limit_rejections_total', `limit="${limit}"`);
/** A counter before the test acts: its series may not be exported yet, so the test's own checks come first. */
const rejectionsBefore = async (server: RunningServer, limit: string) => (await rejections(server, limit)) ?? 0;

/** The HTTP status an upgrade gets (101 when a WebSocket opens, which is then closed) and its headers. */
async function upgrade(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    ws.once('open', () => {
      ws.terminate();
      resolve({ status: 101, headers: {} });
    });
  });
}

function expectUnavailable(reply: Reply, message: RegExp): void {
  expect(reply.ok).toBe(false);
  if (reply.ok) return;
  expect(reply.error.code).toBe('unavailable');
  expect(reply.error.message).toMatch(message);
}

/** Joins a stream and creates the viewer's transport, as a player does before WebRTC. */
async function joinWithTransport(client: SignalingClient, streamId: string): Promise<Reply> {
  const joined = await client.request('join', { streamId });
  if (!joined.ok) return joined;
  const transport = await client.request('createTransport');
  expect(transport.ok).toBe(true);
  return joined;
}

test.describe('viewers, sockets and requests', () => {
  let server: RunningServer;
  test.beforeAll(async () => {
    server = await start({ MAX_VIEWERS: '3', MAX_VIEWERS_PER_STREAM: '2', MAX_SOCKETS_PER_ADDRESS: '4', MAX_PENDING_REQUESTS: '8' });
    const res = await fetch(`${server.url}/api/streams`, {
      method: 'POST',
      headers: { ...operatorHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'second', source: SOURCE }),
    });
    expect(res.status).toBe(200);
  });
  test.afterAll(async () => server?.stop());

  test('past the per-stream and the total viewer limit a join is unavailable; the viewers in stay', async () => {
    const [perStreamBefore, totalBefore] = [await rejectionsBefore(server, 'viewers_per_stream'), await rejectionsBefore(server, 'viewers')];
    const clients = await Promise.all([1, 2, 3, 4].map(() => SignalingClient.open(wsUrl(server))));
    const [a, b, c, d] = clients as [SignalingClient, SignalingClient, SignalingClient, SignalingClient];
    try {
      expect((await joinWithTransport(a, 'default')).ok).toBe(true);
      expect((await joinWithTransport(b, 'default')).ok).toBe(true);
      expectUnavailable(await c.request('join', { streamId: 'default' }), /stream "default" has its maximum of 2 viewers/);
      expect((await joinWithTransport(c, 'second')).ok).toBe(true);
      expectUnavailable(await d.request('join', { streamId: 'second' }), /the server has its maximum of 3 viewers/);
      expect(await rejections(server, 'viewers_per_stream')).toBe(perStreamBefore + 1);
      expect(await rejections(server, 'viewers')).toBe(totalBefore + 1);

      // The first viewers are untouched: listed, and their sessions answer.
      expect((await viewers(server)).map((v) => v.streamId).sort()).toEqual(['default', 'default', 'second']);
      for (const client of [a, b, c]) expect((await client.request('setColors', { colors: ['green'] })).ok).toBe(true);
      expect(a.notifications.filter((n) => n.notification === 'viewerClosed')).toEqual([]);

      // A viewer that leaves frees its place.
      expect((await a.request('leave')).ok).toBe(true);
      expect((await joinWithTransport(d, 'default')).ok).toBe(true);
    } finally {
      clients.forEach((cl) => cl.close());
    }
    await expect.poll(async () => (await viewers(server)).length).toBe(0);
  });

  test('past the sockets of one address an upgrade gets 429 with Retry-After before any WebSocket; a closed one frees its place; the dashboard is counted apart', async () => {
    const before = await rejectionsBefore(server, 'sockets_per_address');
    const clients = await Promise.all([1, 2, 3, 4].map(() => SignalingClient.open(wsUrl(server))));
    try {
      const refused = await upgrade(wsUrl(server));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Players from an address cannot take its operator's dashboard place.
      expect((await upgrade(wsUrl(server, DASHBOARD_WS_PATH))).status).toBe(101);
      expect(await rejections(server, 'sockets_per_address')).toBe(before + 1);
      // The refused connections are gone; the admitted ones stay open and answer.
      expect(await metric(server, 'pels_websockets_open', 'kind="signaling"')).toBe(4);
      expect((await clients[0]!.request('getStreams')).ok).toBe(true);

      clients.shift()!.close();
      await expect.poll(() => metric(server, 'pels_websockets_open', 'kind="signaling"')).toBe(3);
      clients.push(await SignalingClient.open(wsUrl(server)));
      expect((await clients[3]!.request('getStreams')).ok).toBe(true);
    } finally {
      clients.forEach((cl) => cl.close());
    }
    await expect.poll(() => metric(server, 'pels_websockets_open', 'kind="signaling"')).toBe(0);
  });

  test('a socket flooding requests past the pending limit is closed with 1008; the server keeps serving', async () => {
    const before = await rejectionsBefore(server, 'pending_requests');
    // Uncompressed, so the burst arrives at once: a compressed socket's requests are inflated one after another, and
    // they came slower than the server answered them (the limit never reached).
    const flooder = await SignalingClient.open(wsUrl(server), { compress: false });
    // The join keeps the queue busy (it waits on the media worker) while the rest arrive.
    flooder.fire('join', { streamId: 'default' });
    for (let i = 0; i < 200; i++) flooder.fire('getStreams');
    const closed = await Promise.race([flooder.closed, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    flooder.close();
    expect(closed).not.toBeNull();
    expect(closed!.code).toBe(1008);
    expect(closed!.reason).toMatch(/more than 8 requests waiting/);
    expect(await rejections(server, 'pending_requests')).toBe(before + 1);

    const other = await SignalingClient.open(wsUrl(server));
    try {
      expect((await other.request('getStreams')).ok).toBe(true);
    } finally {
      other.close();
    }
    // The flooder's viewer went with its socket.
    await expect.poll(async () => (await viewers(server)).length).toBe(0);
  });
});

test.describe('DTLS deadline and send buffer', () => {
  let server: RunningServer;
  let startedAt: number;
  test.beforeAll(async () => {
    startedAt = Date.now();
    // The send buffer test floods without reading answers: a pending limit this high leaves the send buffer to act.
    server = await start({ DTLS_TIMEOUT_MS: '3000', MAX_SEND_BUFFER_BYTES: String(256 * 1024), MAX_PENDING_REQUESTS: '100000' });
  });
  test.afterAll(async () => server?.stop());


  test('a viewer that never completes DTLS is closed, transports and all, and told why', async () => {
    const before = await rejectionsBefore(server, 'dtls_timeout');
    const withTransport = await SignalingClient.open(wsUrl(server));
    const joinedOnly = await SignalingClient.open(wsUrl(server));
    try {
      expect((await withTransport.request('join', { streamId: 'default' })).ok).toBe(true);
      const transport = await withTransport.request('createTransport');
      expect((await joinedOnly.request('join', { streamId: 'default' })).ok).toBe(true);
      if (!transport.ok) throw new Error(transport.error.message);
      // On the server's one media port, shared by every viewer: the transport, not a port, is what goes.
      expect((transport.data.iceCandidates as { port: number }[]).map((c) => c.port)).toEqual([server.rtcPort, server.rtcPort]);
      expect(await metric(server, 'pels_mediasoup_transports', '')).toBeGreaterThanOrEqual(2);

      for (const client of [withTransport, joinedOnly]) {
        await expect.poll(() => client.notifications.find((n) => n.notification === 'viewerClosed')?.data, { timeout: 10_000 }).toEqual({
          reason: 'DTLS not connected within 3 s',
          // Not the operator's doing: the player may try again.
          rejoin: true,
        });
      }
      expect(await viewers(server)).toEqual([]);
      expect(await metric(server, 'pels_mediasoup_transports', '')).toBe(0);
      expect(await rejections(server, 'dtls_timeout')).toBe(before + 2);
      // The socket stays: the player may join again.
      expect((await withTransport.request('getStreams')).ok).toBe(true);
    } finally {
      withTransport.close();
      joinedOnly.close();
    }
  });

  test('a player in Chromium that completes DTLS stays past the deadline', async ({ page }) => {
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
    const viewerId = await page.evaluate(() => window.pels?.viewerId);
    await sleep(4000);
    // The same viewer (a closed one would have rejoined under a new id), still playing.
    expect((await viewers(server)).map((v) => v.id)).toEqual([viewerId]);
    expect(await page.evaluate(() => window.pels?.state)).toBe('playing');
    await page.close();
    await expect.poll(async () => (await viewers(server)).length).toBe(0);
  });

  test('a player that does not read is cut off before its answers pile up in server memory', async () => {
    const before = await rejectionsBefore(server, 'send_buffer');
    const client = await SignalingClient.open(wsUrl(server));
    const answer = await client.request('getStreams');
    const answerBytes = JSON.stringify(answer).length;
    // The server's RSS climbs for its first seconds (FFmpeg, quality analysis): measure from a settled baseline.
    await sleep(startedAt + 10_000 - Date.now());
    const baseline = await peakRss(server.pid, 2000);
    // Stop reading, then ask for answers worth 128 MB, paced only by this side's own send buffer.
    client.ws.pause();
    const requests = Math.ceil((128 << 20) / answerBytes);
    const request = JSON.stringify({ id: 1, method: 'getStreams' });
    let sent = 0;
    while (sent < requests && client.ws.readyState === WebSocket.OPEN) {
      for (let i = 0; i < 200; i++) client.ws.send(request);
      sent += 200;
      await sleep(1);
      while (client.ws.bufferedAmount > 1 << 20 && client.ws.readyState === WebSocket.OPEN) await sleep(5);
    }
    client.close();
    await sleep(1000);
    const grownMb = (rss(server.pid) - baseline) / (1 << 20);
    console.log(`cut off after ${sent} of ${requests} requests for ${answerBytes}-byte answers; server RSS ${(grownMb >= 0 ? '+' : '') + grownMb.toFixed(0)} MB`);
    expect(sent).toBeLessThan(requests / 4);
    expect(await rejections(server, 'send_buffer')).toBe(before + 1);
    expect(grownMb).toBeLessThan(128);
    expect((await fetch(`${server.url}/api/health`)).ok).toBe(true);
  });
});

function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(kb![1]) * 1024;
}

async function peakRss(pid: number, ms: number): Promise<number> {
  let peak = rss(pid);
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) peak = Math.max(peak, rss(pid));
  return peak;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
