/**
 * The HTTPS certificate from TLS_CERT_FILE and TLS_KEY_FILE, kept current: a
 * renewal (certbot, a cron job, a mounted secret) replaces the files and the
 * server takes the new pair for the next connections, without a restart.
 *
 * The files' directories are watched, not the files: renewals usually swap a
 * symlink or rename a new file into place, which a watch on the old file
 * would miss. A pair that does not load (the key written after the
 * certificate, a truncated file) is logged and the current one kept; the next
 * change tries again.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { Logger } from '../log';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/** Changes in a burst (the certificate, then the key) are read once, after it. */
const SETTLE_MS = 300;

export class TlsFilesError extends Error {
  override name = 'TlsFilesError';
}

/** Reads and checks the pair: both readable, a certificate chain and the key that matches it. */
export async function readTlsPair(files: TlsFiles): Promise<TlsPair> {
  const read = (name: string, path: string) =>
    readFile(path).catch((err: NodeJS.ErrnoException) => {
      throw new TlsFilesError(`${name} ${path}: cannot read it (${err.code ?? err.message})`);
    });
  const [cert, key] = await Promise.all([read('TLS_CERT_FILE', files.certFile), read('TLS_KEY_FILE', files.keyFile)]);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new TlsFilesError(`TLS_CERT_FILE ${files.certFile} and TLS_KEY_FILE ${files.keyFile} do not load: ${(err as Error).message} (PEM files: the certificate chain, leaf first, and its unencrypted private key)`);
  }
  return { cert, key };
}

/** What the log says of a certificate: its subject, names and expiry. */
export function describeCertificate(cert: Buffer): { subject: string; names: string | undefined; validTo: string; expired: boolean } {
  const x = new X509Certificate(cert);
  return { subject: x.subject.replace(/\n/g, ', '), names: x.subjectAltName, validTo: x.validTo, expired: Date.parse(x.validTo) < Date.now() };
}

/**
 * Serving `initial`, swaps `server`'s certificate whenever the files change
 * to a pair that loads. Returns the function that stops watching.
 */
export function keepCertificateCurrent(server: TlsServer, files: TlsFiles, initial: TlsPair, log: Logger): () => void {
  const certificate = describeCertificate(initial.cert);
  if (certificate.expired) log.warn({ certificate, files }, 'serving HTTPS and WSS with an expired certificate: browsers refuse it');
  else log.info({ certificate, files }, 'serving HTTPS and WSS; a renewed certificate is taken when its files change');
  let current = digest(initial);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const reload = async (): Promise<void> => {
    let pair: TlsPair;
    try {
      pair = await readTlsPair(files);
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'the TLS files changed but do not load: still serving the previous certificate');
      return;
    }
    const d = digest(pair);
    if (stopped || d === current) return;
    server.setSecureContext(pair);
    current = d;
    log.info({ certificate: describeCertificate(pair.cert) }, 'TLS certificate reloaded');
  };
  const onChange = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), SETTLE_MS);
  };
  const watchers: FSWatcher[] = [...new Set([dirname(files.certFile), dirname(files.keyFile)])].map((dir) =>
    watch(dir, { persistent: false }, onChange).on('error', (err) => log.warn({ err, dir }, 'cannot watch the TLS files any longer: a renewed certificate needs a restart')),
  );
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}

function digest(p: TlsPair): string {
  return createHash('sha256').update(p.cert).update('\0').update(p.key).digest('hex');
}
