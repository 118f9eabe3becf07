import { expect, test } from '@playwright/test';

type Reply = { id: number | null; ok: boolean; error?: { code: string; message: string }; data?: unknown };

test('malformed signaling messages get error replies and the server keeps serving', async ({ page, baseURL }) => {
  await page.goto('/api/health');
  const wsUrl = baseURL!.replace(/^http/, 'ws') + '/ws';
  const replies = await page.evaluate(async (url) => {
    const ws = new WebSocket(url);
    await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)));
    const got: unknown[] = [];
    const next = () => new Promise<unknown>((r) => (ws.onmessage = (e) => r(JSON.parse(e.data as string))));
    const ask = async (text: string) => {
      const p = next();
      ws.send(text);
      got.push(await p);
    };
    await ask('{not json');
    await ask(JSON.stringify({ id: 1, method: 'selfDestruct', data: {} }));
    await ask(JSON.stringify({ id: 2, method: 'join', data: { streamId: 42 } }));
    await ask(JSON.stringify({ id: 3, method: 'join', data: { streamId: 'no-such-stream' } }));
    await ask(JSON.stringify({ id: 4, method: 'consume', data: { rtpCapabilities: {} } }));
    await ask(JSON.stringify({ id: 5, method: 'setColors', data: { colors: ['red'] } }));
    await ask(JSON.stringify({ id: 6, method: 'getStreams' }));
    ws.close();
    return got;
  }, wsUrl) as Reply[];
  expect(replies.map((r) => [r.id, r.ok, r.error?.code])).toEqual([
    [null, false, 'bad_request'],
    [1, false, 'bad_request'],
    [2, false, 'bad_request'],
    [3, false, 'not_found'],
    [4, false, 'invalid_state'],
    [5, false, 'bad_request'],
    [6, true, undefined],
  ]);
  expect(replies[3]!.error!.message).toContain('no-such-stream');
  // Still serving: HTTP answers and a new connection can list streams.
  const res = await page.request.get('/api/streams');
  expect(res.ok()).toBe(true);
  expect(((await res.json()) as { streams: unknown[] }).streams.length).toBeGreaterThan(0);
});

/**
 * The player's signaling socket as Chromium opens it: compressed (permessage-deflate with the server's small window),
 * and the notifications a joined player gets, the PSNR rows and its state, arrive whole.
 */
test('Chromium and the server compress the signaling socket, and a joined player gets its PSNR rows and state whole', async ({ page }) => {
  await page.goto('/api/health');
  const seen = await page.evaluate(async () => {
    const ws = new WebSocket(`ws://${location.host}/ws`);
    const messages: { id?: number; ok?: boolean; notification?: string; data?: unknown }[] = [];
    ws.onmessage = (ev) => messages.push(JSON.parse(String(ev.data)));
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error('the signaling socket did not open'));
    });
    const wait = async (pred: (m: (typeof messages)[number]) => boolean) => {
      for (let i = 0; i < 100 && !messages.some(pred); i++) await new Promise((r) => setTimeout(r, 100));
      return messages.find(pred);
    };
    ws.send(JSON.stringify({ id: 1, method: 'join', data: { streamId: 'default', mode: 'pels' } }));
    const joined = await wait((m) => m.id === 1);
    const quality = await wait((m) => m.notification === 'quality');
    const state = await wait((m) => m.notification === 'viewerState');
    ws.close();
    return { extensions: ws.extensions, joined: joined?.ok ?? null, quality, state };
  });
  expect(seen.extensions).toMatch(/^permessage-deflate\b/);
  expect(seen.extensions).toMatch(/server_max_window_bits=11/);
  expect(seen.joined).toBe(true);
  const rows = (seen.quality?.data as { frames: { index: number; crc: number; psnr: (number | null)[] }[] } | undefined)?.frames ?? [];
  expect(rows.length).toBeGreaterThan(0);
  // Rows come in index order, each whole. Not one per frame: on a busy machine the
  // table skips a frame whose source plane came too late to be scored (PsnrTableBuilder).
  const indexes = rows.map((r) => r.index);
  expect(indexes.every((x, i) => i === 0 || x > indexes[i - 1]!), `row indexes ${indexes.join(',')}`).toBe(true);
  expect(rows.every((r) => Number.isInteger(r.crc) && typeof r.psnr[0] === 'number')).toBe(true);
  expect((seen.state?.data as { streamId?: string } | undefined)?.streamId).toBe('default');
});
