/**
 * A certificate authority made for one test run with OpenSSL, and a server
 * certificate it signs for the given IP addresses, as the server takes them
 * (TLS_CERT_FILE: the chain, leaf first; TLS_KEY_FILE: the key). Chromium is
 * told to trust the CA by its key's hash (`--ignore-certificate-errors-spki-list`,
 * which accepts a chain holding a certificate with that key); Node by the CA's PEM.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  /** The CA certificate, PEM. */
  caPem: string;
  /** base64 SHA-256 of the CA's SubjectPublicKeyInfo. */
  caSpki: string;
  certFile: string;
  keyFile: string;
}

const openssl = (args: string[], input?: string | Buffer): Buffer => execFileSync('openssl', args, { input, stdio: ['pipe', 'pipe', 'pipe'] });

export function makeTestCa(dir: string, ips: readonly string[]): TestCa {
  const f = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(['req', '-x509', ...ec, '-days', '2', '-subj', '/CN=PELS test CA', '-keyout', f('ca.key'), '-out', f('ca.crt'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(['req', ...ec, '-subj', `/CN=${ips[0]}`, '-keyout', f('server.key'), '-out', f('server.csr')]);
  writeFileSync(f('server.ext'), `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  openssl(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', f('server.ext'), '-out', f('server.crt')]);
  const caPem = readFileSync(f('ca.crt'), 'utf8');
  writeFileSync(f('fullchain.pem'), readFileSync(f('server.crt'), 'utf8') + caPem);
  const spki = openssl(['pkey', '-pubin', '-outform', 'der'], openssl(['x509', '-in', f('ca.crt'), '-noout', '-pubkey']));
  const caSpki = openssl(['dgst', '-sha256', '-binary'], spki).toString('base64');
  return { caPem, caSpki, certFile: f('fullchain.pem'), keyFile: f('server.key') };
}
