import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { resolveSource } from '../ingest/mediaFiles';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { measuredIngest } from './measuredIngest';

const log = pino({ level: 'silent' });
const small = { ...DEFAULT_ENCODE, width: 160, height: 90, bitrateKbps: 200 };

async function until(pred: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Real FFmpeg ingest, reference reader, decoder and worker threads, as the stream wires them. */
async function run(source: string, onRows: (rows: QualityFrame[]) => void) {
  // Every row is asserted: none dropped, however busy the machine running the tests.
  const { close } = measuredIngest(await resolveSource(source, []), small, { onRows, log, queueLimitMs: 60_000, ingest: { initialBackoffMs: 100, maxBackoffMs: 200 } });
  return close;
}

test('a row for every frame, live: the frame itself scores best, its layer and decode checksum come along', async () => {
  const rows: QualityFrame[] = [];
  const stop = await run('lavfi:testsrc2=size=160x90:rate=30', (r) => rows.push(...r));
  try {
    await until(() => rows.length >= 40, 20_000);
  } finally {
    stop();
  }
  assert.deepEqual(rows.slice(0, 40).map((r) => r.index), Array.from({ length: 40 }, (_, i) => i));
  assert.deepEqual(rows.slice(0, 8).map((r) => r.tid), [0, 2, 1, 2, 0, 2, 1, 2]);
  for (const r of rows.slice(10, 40)) {
    assert.equal(r.psnr.length, 9, 'frames i, i-1, ... i-8');
    assert.ok(r.psnr.every((db) => db !== null), 'all decoded');
    const [own, previous] = [r.psnr[0]!, r.psnr[1]!];
    assert.ok(own > 25 && own > previous, `frame ${r.index}: ${own} dB, previous frame ${previous} dB`);
  }
  assert.equal(new Set(rows.map((r) => r.crc)).size, rows.length, 'testsrc2 changes every frame');
  // The decoders the quality threads started end with them.
  await until(() => spawnSync('pgrep', ['-P', String(process.pid), '-f', 'libvpx -i pipe:0']).status === 1, 10_000);
});

test('indexes go on across FFmpeg restarts, and each run pairs its own source planes', async () => {
  const rows: QualityFrame[] = [];
  // Each run lasts 0.5 s (15 frames); the ingest restarts it.
  const stop = await run('lavfi:testsrc2=size=160x90:rate=30:duration=0.5', (r) => rows.push(...r));
  try {
    await until(() => rows.some((r) => r.index >= 40), 30_000);
  } finally {
    stop();
  }
  const later = rows.filter((r) => r.index >= 15);
  assert.ok(later.length >= 20, `${later.length} rows after the first run`);
  for (const r of later) assert.ok((r.psnr[0] ?? 0) > 25, `frame ${r.index}: ${JSON.stringify(r.psnr[0])}`);
});
