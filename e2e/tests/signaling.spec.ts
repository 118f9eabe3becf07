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
