/**
 * Bulk TCP transfers for the testbed, run as a child process inside a
 * network namespace (Node cannot switch namespaces per socket):
 *
 *   tsx bulkTcp.ts send    --port P [--bytes B]
 *   tsx bulkTcp.ts receive --host H --port P --flows N [--bytes B] [--seconds S]
 *
 * The sender writes B bytes (endless without --bytes) to each connection and
 * closes it. The receiver opens N connections at once and prints one JSON line
 * per 250 ms with each flow's cumulative bytes, one line per finished flow and
 * a last line when all are done; with --seconds it closes unfinished flows then.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import type { BulkTcpLine } from './tcpFlows';

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

const emit = (line: BulkTcpLine): void => void process.stdout.write(JSON.stringify(line) + '\n');

function send(port: number, limit: number): void {
  const server = createServer((sock) => {
    sock.on('error', () => sock.destroy());
    let left = limit;
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, CHUNK.length);
        left -= n;
        if (!sock.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void sock.once('drain', pump);
      }
      sock.end();
    };
    pump();
  });
  server.listen(port, '0.0.0.0', () => emit({ kind: 'ready' }));
}

function receive(host: string, port: number, flows: number, limit: number, seconds: number | undefined): void {
  const t0 = Date.now();
  const bytes = new Array<number>(flows).fill(0);
  const socks: Socket[] = [];
  let open = flows;
  const timer = setInterval(() => emit({ kind: 'bytes', atMs: Date.now() - t0, bytes: [...bytes] }), 250);
  const finish = (i: number): void => {
    emit({ kind: 'done', flow: i, atMs: Date.now() - t0, bytes: bytes[i]!, complete: bytes[i]! >= limit });
    if (--open === 0) {
      clearInterval(timer);
      emit({ kind: 'bytes', atMs: Date.now() - t0, bytes: [...bytes] });
      emit({ kind: 'end' });
    }
  };
  for (let i = 0; i < flows; i++) {
    const sock = createConnection({ host, port });
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      finish(i);
    };
    sock.on('data', (d: Buffer) => void (bytes[i] = bytes[i]! + d.length));
    sock.on('close', close);
    sock.on('error', () => sock.destroy());
    socks.push(sock);
  }
  if (seconds !== undefined) setTimeout(() => socks.forEach((s) => s.destroy()), seconds * 1000).unref();
}

function main(): void {
  const [role, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({ args: rest, options: { host: { type: 'string' }, port: { type: 'string' }, flows: { type: 'string' }, bytes: { type: 'string' }, seconds: { type: 'string' } }, strict: true });
  const port = Number(values.port);
  const limit = values.bytes === undefined ? Infinity : Number(values.bytes);
  if (role === 'send') return send(port, limit);
  if (role === 'receive') return receive(values.host ?? '127.0.0.1', port, Number(values.flows ?? 1), limit, values.seconds === undefined ? undefined : Number(values.seconds));
  throw new Error(`unknown role "${role}": send or receive`);
}

main();
