/**
 * The operator API against the real server (started by the Playwright
 * config with E2E_OPERATOR_TOKEN): every action, and 401s that change
 * nothing. Tests restore what they change: other spec files share the server.
 */
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { BEST_EFFORT_DSCP, DSCP } from '@pels/shared/pels/color';
import type { ViewerState } from '@pels/shared/protocol/api';
import type { ControlSettingsInfo, OperatorSnapshot, OperatorStream } from '@pels/shared/protocol/operator';
import type { StreamInfo } from '@pels/shared/protocol/signaling';
import { serverDscpTables } from '../src/dscpTables';
import { operatorHeaders } from '../src/operatorToken';

const auth = operatorHeaders();
const LAVFI = 'lavfi:testsrc2=size=320x180:rate=30';


async function startPlayer(page: Page): Promise<string> {
  await page.goto('/');
  await page.waitForFunction(() => window.pels?.state === 'playing', null, { timeout: 30_000 });
  return (await page.evaluate(() => window.pels?.viewerId))!;
}

async function viewers(request: APIRequestContext): Promise<ViewerState[]> {
  const res = await request.get('/api/viewers', { headers: auth });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { viewers: ViewerState[] }).viewers;
}

async function streams(request: APIRequestContext): Promise<StreamInfo[]> {
  return ((await (await request.get('/api/streams')).json()) as { streams: StreamInfo[] }).streams;
}

async function expectError(res: Awaited<ReturnType<APIRequestContext['get']>>, status: number, code: string, message?: RegExp): Promise<string> {
  expect(res.status()).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  if (message) expect(body.error.message).toMatch(message);
  return body.error.message;
}

test('without a valid operator token every operator route answers 401 and changes nothing; viewer routes stay open', async ({ request }) => {
  const calls: Array<[string, string, unknown?]> = [
    ['GET', '/api/viewers'],
    ['GET', '/api/router'],
    ['POST', '/api/router-feedback', { routerId: 'r', epoch: 1, p: 0.5, intervalMs: 100 }],
    ['GET', '/api/operator/snapshot'],
    ['POST', '/api/streams', { id: 'unauthorized', source: LAVFI }],
    ['DELETE', '/api/streams/default'],
    ['DELETE', '/api/viewers/someone'],
    ['POST', '/api/viewers/someone/mode', { mode: 'best-effort' }],
    ['GET', '/api/control'],
    ['PUT', '/api/control', { beta: 1 }],
    ['GET', '/metrics'],
  ];
  const before = await (await request.get('/api/control', { headers: auth })).json();
  for (const headers of [{}, operatorHeaders('wrong-token-of-some-length'), { authorization: 'Basic abc' }]) {
    for (const [method, url, data] of calls) {
      const res = await request.fetch(url, { method, headers, ...(data ? { data } : {}) });
      await expectError(res, 401, 'unauthorized');
      expect(res.headers()['www-authenticate'], `${method} ${url}`).toBe('Bearer');
    }
  }
  const ids = (await streams(request)).map((s) => s.id);
  expect(ids).toContain('default');
  expect(ids).not.toContain('unauthorized');
  expect(await (await request.get('/api/control', { headers: auth })).json()).toEqual(before);

  expect((await request.get('/api/health')).status()).toBe(200);
  expect((await request.get('/api/streams')).status()).toBe(200);
});

test('add a source, see it run, reject bad ones clearly, remove it', async ({ request }) => {
  const add = (data: unknown) => request.post('/api/streams', { headers: auth, data });
  const res = await add({ id: 'e2e-lavfi', name: 'E2E test pattern', source: LAVFI });
  expect(res.status()).toBe(200);
  const { stream } = (await res.json()) as { stream: OperatorStream };
  expect(stream).toMatchObject({ id: 'e2e-lavfi', name: 'E2E test pattern', source: LAVFI, viewers: 0 });
  try {
    await expect
      .poll(async () => (await streams(request)).find((s) => s.id === 'e2e-lavfi'), { timeout: 15_000 })
      .toMatchObject({ state: 'running', framesIngested: expect.any(Number) });
    // Per-layer bitrate is measured once a second of frames has come.
    await expect
      .poll(async () => {
        const snap = (await (await request.get('/api/operator/snapshot', { headers: auth })).json()) as OperatorSnapshot;
        return snap.streams.find((s) => s.id === 'e2e-lavfi')?.layerKbps?.total ?? 0;
      }, { timeout: 15_000 })
      .toBeGreaterThan(50);

    await expectError(await add({ id: 'e2e-lavfi', source: LAVFI }), 409, 'invalid_state', /already exists/);
    await expectError(await add({ source: 'no-such-clip.mp4' }), 400, 'bad_request', /not found or not readable: no-such-clip.mp4/);
    await expectError(await add({ source: 'lavfi:nosuchfilter' }), 400, 'bad_request', /lavfi filter "nosuchfilter" is not allowed/);
    await expectError(await add({ source: '  ' }), 400, 'bad_request', /source is empty/);
    await expectError(await add({ id: 'has space', source: LAVFI }), 400, 'bad_request', /at id: id must be/);
    await expectError(await add({}), 400, 'bad_request', /at source/);
  } finally {
    await request.delete('/api/streams/e2e-lavfi', { headers: auth });
  }
  const ids = (await streams(request)).map((s) => s.id);
  expect(ids).not.toContain('e2e-lavfi');
  await expectError(await request.delete('/api/streams/e2e-lavfi', { headers: auth }), 404, 'not_found');
});

test('controller gains: changed within the stable ranges, rejected with a clear 400 outside them', async ({ request }) => {
  const get = async () => (await (await request.get('/api/control', { headers: auth })).json()) as ControlSettingsInfo;
  const put = (data: unknown) => request.put('/api/control', { headers: auth, data });
  const original = await get();
  expect(original.appliesTo).toBe('new-viewers');
  try {
    const res = await put({ alphaKbps: 30, beta: 0.8 });
    expect(res.status()).toBe(200);
    expect(((await res.json()) as ControlSettingsInfo).gains).toEqual({ ...original.gains, alphaKbps: 30, beta: 0.8 });
    expect((await get()).gains).toEqual({ ...original.gains, alphaKbps: 30, beta: 0.8 });

    const message = await expectError(await put({ beta: 2, sigma: 0 }), 400, 'bad_request');
    expect(message).toContain('beta must be in (0, 2) for MKC to be stable');
    expect(message).toContain('sigma must be in (0, 2) for gamma to be stable');
    await expectError(await put({ pThr: 1.5 }), 400, 'bad_request', /pThr must be in \(0, 1\]/);
    await expectError(await put({ alphaKbps: 0 }), 400, 'bad_request', /alphaKbps must be > 0/);
    await expectError(await put({ gamma: 0.3 }), 400, 'bad_request', /Unrecognized key/);
    await expectError(await put({}), 400, 'bad_request', /at least one/);
    expect((await get()).gains).toEqual({ ...original.gains, alphaKbps: 30, beta: 0.8 });
  } finally {
    await put(original.gains);
  }
});

test('a viewer is listed with its live state, switched to best effort and back (DSCP re-marked), and disconnected', async ({ page, request }) => {
  const id = await startPlayer(page);
  // Controller steps and per-color counts come from receiver reports (about one a second).
  const live = (v: ViewerState | undefined) => Math.min(v?.feedbackSteps ?? 0, v?.perColor.green.packetsSent ?? 0);
  await expect.poll(async () => live((await viewers(request)).find((v) => v.id === id)), { timeout: 15_000 }).toBeGreaterThan(0);
  const v = (await viewers(request)).find((x) => x.id === id)!;
  expect(v).toMatchObject({ streamId: 'default', mode: 'pels' });
  expect(v.rateKbps).toBeGreaterThan(0);
  expect(v.perColor.green.packetsSent).toBeGreaterThan(0);

  const setMode = (mode: string) => request.post(`/api/viewers/${id}/mode`, { headers: auth, data: { mode } });
  const res = await setMode('best-effort');
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { viewer: ViewerState }).viewer.mode).toBe('best-effort');
  expect((await viewers(request)).find((x) => x.id === id)?.mode).toBe('best-effort');
  const marks = dscpMarks(v);
  test.info().annotations.push({ type: 'dscp after switch', description: marks ? JSON.stringify(marks) : 'not marked here (not root or no nftables)' });
  // Retransmissions (RTX, set at consume) follow their color's mark: best effort marks them all alike.
  const be = BEST_EFFORT_DSCP;
  if (marks) expect(marks).toEqual({ green: be, yellow: be, red: be, 'green rtx': be, 'yellow rtx': be });
  // The flow goes on in the new mode: frames keep flowing to the player.
  const sent = (await viewers(request)).find((x) => x.id === id)!.framesSent.tid0;
  await expect.poll(async () => (await viewers(request)).find((x) => x.id === id)!.framesSent.tid0, { timeout: 5000 }).toBeGreaterThan(sent);

  // No loss here: PELS repairs green only.
  expect((await setMode('pels')).status()).toBe(200);
  if (marks) expect(dscpMarks(v)).toEqual({ ...DSCP, 'green rtx': DSCP.green, 'yellow rtx': DSCP.red });
  await expectError(await setMode('fast'), 400, 'bad_request', /at mode/);
  // PELS consumed green with RTX, and yellow where nftables marks (never red): a switch to nack would need it on every stream.
  const consumedRtx = marks ? 'green, yellow' : 'green';
  await expectError(await setMode('nack'), 409, 'invalid_state', new RegExp(`to nack: retransmission is set when the viewer starts consuming, and it consumed only ${consumedRtx} with it`));
  await expectError(await request.post('/api/viewers/nobody/mode', { headers: auth, data: { mode: 'pels' } }), 404, 'not_found');

  expect((await request.delete(`/api/viewers/${id}`, { headers: auth })).status()).toBe(200);
  expect((await viewers(request)).map((x) => x.id)).not.toContain(id);
  await expectError(await request.delete(`/api/viewers/${id}`, { headers: auth }), 404, 'not_found');
  // The player is told why (and does not rejoin by itself: viewerNotices.spec.ts).
  await page.waitForFunction(() => /disconnected by the operator/.test(window.pels?.error ?? ''), null, { timeout: 5000 });
});

test('/metrics: Prometheus text with process, stream, viewer and mediasoup worker metrics', async ({ page, request }) => {
  const id = await startPlayer(page);
  await expect.poll(async () => (await viewers(request)).find((v) => v.id === id)?.feedbackSteps ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
  const res = await request.get('/metrics', { headers: auth });
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toMatch(/^text\/plain; version=0.0.4/);
  const text = await res.text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  expect(value('pels_stream_state{stream="default",state="running"}')).toBe(1);
  expect(value('pels_stream_frames_ingested_total{stream="default"}')).toBeGreaterThan(0);
  expect(value('pels_viewers{stream="default",mode="pels"}')).toBeGreaterThanOrEqual(1);
  expect(value('pels_packets_sent_total{stream="default",color="green"}')).toBeGreaterThan(0);
  expect(value(`pels_viewer_rate_kbps{stream="default",viewer="${id}",controller="mkc"}`)).toBeGreaterThan(0);
  expect(value('pels_mediasoup_workers')).toBe(1);
  expect(value('pels_mediasoup_worker_cpu_seconds_total{mode="user"}')).toBeGreaterThan(0);
  expect(value('pels_mediasoup_worker_max_rss_bytes')).toBeGreaterThan(1e6);
  expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
  expect(value('pels_control_gain{gain="beta"}')).toBeGreaterThan(0);
  test.info().annotations.push({ type: 'metrics', description: `${text.split('\n').filter((l) => l && !l.startsWith('#')).length} series` });
});

test('the dashboard feed: a wrong token is refused (close 4401), the right one gets snapshots about once a second', async ({ page }) => {
  await page.goto('/api/health');
  const feed = (token: string) =>
    page.evaluate(
      (token) =>
        new Promise<{ messages: string[]; closeCode: number | null }>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/ws/operator`);
          const messages: string[] = [];
          ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', token }));
          ws.onmessage = (e) => {
            messages.push(String(e.data));
            if (messages.length === 3) ws.close();
          };
          ws.onclose = (e) => resolve({ messages, closeCode: e.code });
          setTimeout(() => resolve({ messages, closeCode: null }), 6000);
        }),
      token,
    );
  const refused = await feed('wrong-token-of-some-length');
  expect(refused.closeCode).toBe(4401);
  expect(JSON.parse(refused.messages[0]!)).toMatchObject({ type: 'error', error: { code: 'unauthorized' } });

  const ok = await feed(auth.authorization!.slice('Bearer '.length));
  expect(ok.messages).toHaveLength(3);
  const snaps = ok.messages.map((m) => JSON.parse(m) as { type: string; data: OperatorSnapshot });
  expect(snaps.every((s) => s.type === 'snapshot')).toBe(true);
  expect(snaps[0]!.data.streams.map((s) => s.id)).toContain('default');
  // The first at once, then one a tick (shared by every dashboard connected, so the first gap may be shorter), by the server's clock;
  // how soon they come is a timing, not asserted.
  const at = snaps.map((s) => Date.parse(s.data.at));
  expect(at[1]!).toBeGreaterThan(at[0]!);
  expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(900);
});

/** The DSCP each of the viewer's streams is marked with in the server's nftables table, or null when marking is off here. */
function dscpMarks(v: ViewerState): Record<string, number | 'drop' | undefined> | null {
  if (!v.dscp.enabled) return null;
  const tables = serverDscpTables(Number(new URL(test.info().project.use.baseURL!).port));
  expect(tables, 'one nftables table of the server').toHaveLength(1);
  const streams = [...Object.entries(v.ssrcs), ...Object.entries(v.rtx.ssrcs).map(([color, ssrc]) => [`${color} rtx`, ssrc] as const)];
  return Object.fromEntries(streams.map(([name, ssrc]) => [name, tables[0]!.marks.get(ssrc)]));
}
