/**
 * HTTPS with certificates OpenSSL makes here: the server serves the files'
 * certificate, takes a renewed one without a restart (files replaced, or a
 * symlink swapped as certbot does), and keeps the current one while the
 * files do not load.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { httpHandler } from './httpServer';
import { keepCertificateCurrent, readTlsPair, TlsFilesError } from './tlsCertificate';

const dir = mkdtempSync(join(tmpdir(), 'pels-tls-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate for 127.0.0.1 and its key, as PEM files in `into`; returns its SHA-256 fingerprint as node prints it. */
function makeCertificate(into: string, cn: string): string {
  mkdirSync(into, { recursive: true });
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(into, 'key.pem'), '-out', join(into, 'cert.pem'),
  ], { stdio: 'ignore' });
  const out = execFileSync('openssl', ['x509', '-in', join(into, 'cert.pem'), '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' });
  return out.trim().split('=')[1]!;
}

/** The fingerprint of the certificate a new TLS connection to `port` is given. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate().fingerprint256);
      s.end();
    });
    s.once('error', reject);
  });
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function serve(files: { certFile: string; keyFile: string }, logs: string[]): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const pair = await readTlsPair(files);
  const server = createServer(pair, httpHandler([{ method: 'GET', path: '/api/health', handler: () => ({ ok: true }) }], dir, log, { tls: true }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const stopWatching = keepCertificateCurrent(server, files, pair, log);
  return {
    server,
    port: (server.address() as { port: number }).port,
    stop: async () => {
      stopWatching();
      await new Promise((r) => server.close(r));
    },
  };
}

test('a certificate renewed by replacing the files is served to new connections without a restart', async () => {
  const a = makeCertificate(join(dir, 'a'), 'first');
  const b = makeCertificate(join(dir, 'b'), 'renewed');
  const live = join(dir, 'live');
  mkdirSync(live);
  for (const f of ['cert.pem', 'key.pem']) writeFileSync(join(live, f), readFileSync(join(dir, 'a', f)));
  const logs: string[] = [];
  const { port, stop } = await serve({ certFile: join(live, 'cert.pem'), keyFile: join(live, 'key.pem') }, logs);
  try {
    assert.equal(await servedFingerprint(port), a);
    const health = await new Promise<string>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => s.write('GET /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'));
      let got = '';
      s.setEncoding('utf8').on('data', (d: string) => (got += d)).on('end', () => resolve(got)).on('error', reject);
    });
    assert.match(health, /^HTTP\/1\.1 200[\s\S]*\{"ok":true\}/);
    // Under TLS only: browsers then refuse plain HTTP to this host for a year.
    assert.match(health, /\r\nstrict-transport-security: max-age=31536000\r\n/i);
    // Written beside and renamed into place, key first, as renewal tools do.
    for (const f of ['key.pem', 'cert.pem']) {
      writeFileSync(join(live, `${f}.new`), readFileSync(join(dir, 'b', f)));
      renameSync(join(live, `${f}.new`), join(live, f));
    }
    await until('the renewed certificate served', async () => (await servedFingerprint(port)) === b);
    assert.ok(logs.some((l) => l.includes('TLS certificate reloaded') && l.includes('CN=renewed')), logs.join(''));
  } finally {
    await stop();
  }
});

test('a symlink swapped to a new certificate (certbot) is taken; files that do not load keep the current one', async () => {
  const [one, two, three] = ['c1', 'c2', 'c3'].map((n) => makeCertificate(join(dir, 'archive', n), n));
  const live = join(dir, 'symlinked');
  mkdirSync(live);
  const point = (to: string) => {
    for (const f of ['cert.pem', 'key.pem']) {
      symlinkSync(join(dir, 'archive', to, f), join(live, `${f}.tmp`));
      renameSync(join(live, `${f}.tmp`), join(live, f));
    }
  };
  point('c1');
  const logs: string[] = [];
  const { port, stop } = await serve({ certFile: join(live, 'cert.pem'), keyFile: join(live, 'key.pem') }, logs);
  try {
    assert.equal(await servedFingerprint(port), one);
    point('c2');
    await until('the swapped certificate served', async () => (await servedFingerprint(port)) === two);
    // c3's certificate with c2's key: the pair does not match, c2 stays.
    symlinkSync(join(dir, 'archive', 'c3', 'cert.pem'), join(live, 'cert.pem.tmp'));
    renameSync(join(live, 'cert.pem.tmp'), join(live, 'cert.pem'));
    await until('the bad pair reported', async () => logs.some((l) => l.includes('do not load: still serving the previous certificate')));
    assert.equal(await servedFingerprint(port), two);
    // The key follows: now the pair loads.
    symlinkSync(join(dir, 'archive', 'c3', 'key.pem'), join(live, 'key.pem.tmp'));
    renameSync(join(live, 'key.pem.tmp'), join(live, 'key.pem'));
    await until('the completed pair served', async () => (await servedFingerprint(port)) === three);
  } finally {
    await stop();
  }
});

test('at start, a missing file or a key that does not match is a clear error naming the files', async () => {
  makeCertificate(join(dir, 'x'), 'x');
  makeCertificate(join(dir, 'y'), 'y');
  await assert.rejects(readTlsPair({ certFile: join(dir, 'nope.pem'), keyFile: join(dir, 'x', 'key.pem') }), (e: unknown) => {
    assert.ok(e instanceof TlsFilesError);
    assert.match(e.message, /^TLS_CERT_FILE .*nope\.pem: cannot read it \(ENOENT\)$/);
    return true;
  });
  await assert.rejects(readTlsPair({ certFile: join(dir, 'x', 'cert.pem'), keyFile: join(dir, 'y', 'key.pem') }), /TLS_CERT_FILE .*x\/cert\.pem and TLS_KEY_FILE .*y\/key\.pem do not load: .*key values mismatch/);
  await assert.rejects(readTlsPair({ certFile: join(dir, 'x', 'key.pem'), keyFile: join(dir, 'x', 'key.pem') }), /do not load/);
});
