import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import type { MessagePort } from 'node:worker_threads';
import { pino } from 'pino';
import { openReferencePipe } from '../ingest/referencePipe';
import { noQualityDrops } from './dropWarning';
import type { ReferencePlane } from './qualityWorkerProtocol';
import { ReferenceReader } from './referenceReader';

const log = pino({ level: 'silent' });
/** 16x8 planes. */
const size = { width: 16, height: 8 };
const PLANE = size.width * size.height;

async function until(pred: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A run as the ingest makes one: a process given the write end at fd 3, the reader the read end; resolves when the writer exits. */
async function run(reader: ReferenceReader, runNumber: number, writer: string[]): Promise<void> {
  const pipe = openReferencePipe();
  const proc = spawn(writer[0]!, writer.slice(1), { stdio: ['ignore', 'ignore', 'inherit', pipe.writeFd] });
  closeSync(pipe.writeFd);
  reader.read(runNumber, pipe.readFd);
  await once(proc, 'close');
}

/** A writer of `bytes` bytes of value `value` to fd 3. */
const nodeWriter = (bytes: number, value: number) => [process.execPath, '-e', `require('node:fs').writeSync(3, Buffer.alloc(${bytes}, ${value}))`];

/** A quality worker's side of the reader's channel, on this thread; `keepUp`: it takes each plane off the queue as it comes. */
function consumer(reader: ReferenceReader, keepUp: boolean): ReferencePlane[] {
  const got: ReferencePlane[] = [];
  reader.subscribe((port: MessagePort, backlog) => {
    const queued = new Int32Array(backlog);
    port.on('message', (p: ReferencePlane) => {
      if (keepUp) Atomics.sub(queued, 0, 1);
      got.push(p);
    });
    port.unref();
  });
  return got;
}

test('every consumer gets whole planes in order; a plane cut short when its writer died is not carried into the next run', async () => {
  const reader = new ReferenceReader({ ...size, frameRate: 30, log });
  const [a, b] = [consumer(reader, true), consumer(reader, true)];
  try {
    // Run 1 dies a half plane into its second plane, as an FFmpeg killed mid-write.
    await run(reader, 1, nodeWriter(PLANE * 1.5, 1));
    await run(reader, 2, nodeWriter(PLANE * 3, 2));
    await until(() => a.length >= 4 && b.length >= 4, 20_000);
    for (const got of [a, b]) {
      assert.deepEqual(got.map((p) => [p.run, p.k]), [[1, 0], [2, 0], [2, 1], [2, 2]]);
      assert.ok(got.every((p) => p.plane.length === PLANE && p.plane.every((v) => v === p.run)), 'each plane all its own run\'s bytes');
    }
    assert.notEqual(a[0]!.plane.buffer, b[0]!.plane.buffer, 'each consumer its own copy');
    assert.deepEqual(reader.planes, { read: 4, dropped: 0 });
  } finally {
    reader.close();
  }
});

test('a consumer that falls behind gets its queue\'s worth and no more, the drops counted for /metrics; the writer is never held', async () => {
  const warnings: string[] = [];
  const drops = noQualityDrops();
  const reader = new ReferenceReader({ ...size, frameRate: 30, queueLimitMs: 1000, log: pino({ level: 'warn' }, { write: (l: string) => warnings.push(l) }), drops });
  const behind = consumer(reader, false);
  try {
    // 300 planes as fast as FFmpeg makes them (no -re): 30 queue (a second's at 30 fps), the rest are dropped.
    const started = Date.now();
    await run(reader, 1, ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${size.width}x${size.height}:rate=30`, '-frames:v', '300', '-vf', 'extractplanes=y', '-f', 'rawvideo', 'pipe:3']);
    const writerMs = Date.now() - started;
    await until(() => reader.planes.read === 300 && warnings.length > 0, 20_000);
    assert.deepEqual(reader.planes, { read: 300, dropped: 270 });
    assert.equal(behind.length, 30);
    assert.match((JSON.parse(warnings[0]!) as { msg: string }).msg, /quality measurement fell behind/);
    assert.equal((JSON.parse(warnings[0]!) as { at: string }).at, 'reference reader');
    // Told by the reader thread at most a second late.
    await until(() => drops['reference reader'] === 270, 5000);
    assert.deepEqual(drops, { 'reference reader': 270, 'quality thread': 0 });
    assert.ok(writerMs < 15_000, `the writer took ${writerMs} ms`);
  } finally {
    reader.close();
  }
});

test('closed, the reader leaves no open file and nothing in the temporary directory', async () => {
  const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith('pels-reference-'));
  const before = readdirSync('/proc/self/fd').length;
  const reader = new ReferenceReader({ ...size, frameRate: 30, log });
  consumer(reader, true);
  // A writer still running when the reader closes: its pipe is the reader's to close.
  const pipe = openReferencePipe();
  const writer = spawn('sleep', ['30'], { stdio: ['ignore', 'ignore', 'ignore', pipe.writeFd] });
  closeSync(pipe.writeFd);
  reader.read(1, pipe.readFd);
  assert.deepEqual(leftovers(), []);
  try {
    await new Promise((r) => setTimeout(r, 500));
    reader.close();
    await until(() => readdirSync('/proc/self/fd').length <= before, 10_000);
  } finally {
    writer.kill('SIGKILL');
  }
});
