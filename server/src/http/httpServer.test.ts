import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createLogger } from '../log';
import { createHttpServer, routeUpgrades } from './httpServer';

const dir = mkdtempSync(join(tmpdir(), 'pels-http-'));
const bigFile = join(dir, 'big.bin');
let server: Server;
let port: number;
let upgrades = 0;

before(async () => {
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>player</title>');
  writeFileSync(bigFile, Buffer.alloc(32 << 20, 7));
  server = createHttpServer([{ method: 'GET', path: '/api/ping', handler: () => ({ pong: true }) }], dir, createLogger('silent'));
  routeUpgrades(server, { '/ws': (_req, socket) => { upgrades++; socket.destroy(); } }, createLogger('silent'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

after(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Sends raw bytes (so any request target can be sent) and returns the status line's code. */
function rawStatus(request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(request));
    s.setTimeout(5000, () => s.destroy());
    let got = '';
    s.setEncoding('latin1').on('data', (d: string) => {
      got += d;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m) {
        resolve(Number(m[1]));
        s.destroy();
      }
    });
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed without a status line: ${JSON.stringify(got)}`)));
  });
}

const get = (target: string) => `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`;
const upgrade = (target: string) =>
  `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

test('malformed request targets get 400 and the server keeps serving', async () => {
  for (const target of ['//', '//?x', '/%E0%A4%A', '/api/%E0%A4%A', '/a%00b']) {
    assert.equal(await rawStatus(get(target)), 400, target);
    assert.equal(await rawStatus(get('/api/ping')), 200, `still serving after ${target}`);
  }
  assert.equal(await rawStatus(get('/')), 200);
  assert.equal(await rawStatus(get('/no/such/page')), 200, 'client-side routes get index.html');
});

test('upgrades with malformed targets get 400, unknown paths 404, and the server keeps serving', async () => {
  for (const target of ['//', '//?x', '/%E0%A4%A']) {
    assert.equal(await rawStatus(upgrade(target)), 400, target);
  }
  assert.equal(await rawStatus(upgrade('/elsewhere')), 404);
  assert.equal(upgrades, 0);
  assert.equal(await rawStatus(get('/api/ping')), 200);
});

/** This process's open descriptors of the big file. */
function openCopies(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === bigFile) n++;
    } catch {
      // closed while listing
    }
  }
  return n;
}

test('a download aborted by the client leaves no file descriptor open', async () => {
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.write(get('/big.bin')));
      s.once('data', () => {
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
  }
  for (let i = 0; i < 50 && openCopies() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(openCopies(), 0);
});
