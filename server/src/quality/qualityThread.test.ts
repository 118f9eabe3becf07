import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { IvfReader } from '../ingest/ivfReader';
import { noQualityDrops } from './dropWarning';
import type { ReferencePlane } from './qualityWorkerProtocol';
import type { ReferenceSource } from './referenceReader';
import { QualityThread } from './qualityThread';

const SIZE = { width: 64, height: 36 };
const FRAMES = 7;
/** A test pattern's first frames by FFmpeg: each a VP8 keyframe, and its Y plane. */
const source = ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${SIZE.width}x${SIZE.height}:rate=30`, '-frames:v', String(FRAMES)];
const encoded = new IvfReader().push(execFileSync('ffmpeg', [...source, '-c:v', 'libvpx', '-g', '1', '-b:v', '500k', '-f', 'ivf', '-'])).map((f) => f.data);
const yPlanes = execFileSync('ffmpeg', [...source, '-vf', 'extractplanes=y', '-f', 'rawvideo', '-']);
const plane = (k: number) => yPlanes.subarray(k * SIZE.width * SIZE.height, (k + 1) * SIZE.width * SIZE.height).slice();

async function until(pred: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The test stands in for the reference reader thread: it posts the planes on the worker's reference port itself. */
class TestReference implements ReferenceSource {
  port: MessagePort | null = null;
  subscribe(deliver: (port: MessagePort, backlog: SharedArrayBuffer) => void): () => void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    deliver(port2, new SharedArrayBuffer(4));
    return () => port1.close();
  }
  send(k: number, sentAt = Date.now()): void {
    const p = new Uint8Array(plane(k));
    this.port!.postMessage({ type: 'plane', run: 1, k, plane: p, sentAt } satisfies ReferencePlane, [p.buffer as ArrayBuffer]);
  }
}

test('planes and frames that waited past the queue limit are dropped unscored, logged and counted for /metrics; a fresh frame is decoded and scored', async () => {
  const rows: QualityFrame[] = [];
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const reference = new TestReference();
  const drops = noQualityDrops();
  const thread = new QualityThread({ onRows: (r) => rows.push(...r), reference, decode: { ...SIZE, frameRate: 30, ffmpegPath: 'ffmpeg' }, log, queueLimitMs: 1000, drops });
  const frame = (k: number, sentAt?: number) => thread.post({ type: 'frame', run: 1, pts: k, index: 100 + k, tid: 0, keyframe: true, data: encoded[k]! }, sentAt);
  try {
    // A first frame: once it is scored the worker runs (a plane posted while it started waits from its start).
    reference.send(0);
    frame(0);
    await until(() => rows.length > 0, 20_000);
    // Past the limit since it started, too.
    await new Promise((r) => setTimeout(r, 1500));
    // Handed over 5 s ago: a worker that far behind drops them.
    const stale = Date.now() - 5000;
    for (let k = 1; k <= 5; k++) {
      reference.send(k, stale);
      frame(k, stale);
    }
    reference.send(6);
    frame(6);
    await until(() => rows.length > 1 && warnings.length > 0, 20_000);
    assert.deepEqual(rows.map((r) => r.index), [100, 106]);
    assert.ok(rows[1]!.psnr[0]! > 25, `the frame decoded and scored against its source: ${rows[1]!.psnr[0]} dB`);
    assert.match((JSON.parse(warnings[0]!) as { msg: string }).msg, /quality measurement fell behind/);
    // The 5 stale planes, and the 5 stale frames' decoded planes (told before the fresh frame's row).
    assert.deepEqual(drops, { 'reference reader': 0, 'quality thread': 10 });
  } finally {
    thread.close();
  }
});

/** This process's child processes that run FFmpeg, running or exited and not yet reaped (zombies). */
function ffmpegChildren(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces, so the fields after it are read from the last ')'.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (comm === 'ffmpeg' && Number(ppid) === process.pid) out.push(`${pid} ${state}`);
  }
  return out;
}

test("a closed thread's decoder is killed and reaped: no FFmpeg of it is left, running or as a zombie", async () => {
  const reference = new TestReference();
  const rows: QualityFrame[] = [];
  const thread = new QualityThread({ onRows: (r) => rows.push(...r), reference, decode: { ...SIZE, frameRate: 30, ffmpegPath: 'ffmpeg' }, log: pino({ level: 'silent' }) });
  try {
    reference.send(0);
    thread.post({ type: 'frame', run: 1, pts: 0, index: 100, tid: 0, keyframe: true, data: encoded[0]! });
    await until(() => rows.length > 0, 20_000);
    assert.equal(ffmpegChildren().length, 1, 'the worker runs its decoder');
  } finally {
    thread.close();
  }
  await until(() => ffmpegChildren().length === 0, 10_000).catch(() => assert.fail(`left behind: ${ffmpegChildren().join(', ')}`));
});
