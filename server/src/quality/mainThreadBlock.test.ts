/**
 * FFmpeg is not paced by node's main thread: with the main thread blocked for 2 s
 * (as a burst of work at hundreds of viewers blocks it, only longer), a real
 * stream's FFmpeg goes on writing its reference planes (read by the reader thread)
 * and its frames to the encoders. Before the reader thread, a plane read on the
 * main thread held FFmpeg's one output thread after a pipe's worth (about a plane).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pino } from 'pino';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { resolveSource } from '../ingest/mediaFiles';
import { DEFAULT_ENCODE } from '../ingest/sourceSpec';
import { measuredIngest } from './measuredIngest';

const log = pino({ level: 'silent' });
const BLOCK_MS = 2000;

async function until(pred: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** This process's FFmpeg ingest (the one with a filter graph). */
function ffmpegPid(): number {
  return Number(execFileSync('pgrep', ['-P', String(process.pid), '-f', 'filter_complex'], { encoding: 'utf8' }).trim());
}

/** Bytes the process has written so far (its outputs: the encoders' frames, the reference planes, the sound). */
function bytesWritten(pid: number): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

test('with node\'s main thread blocked 2 s, FFmpeg goes on writing its frames, planes and sound', async (t) => {
  const rows: QualityFrame[] = [];
  const spec = await resolveSource('lavfi:testsrc2=size=640x360:rate=30|sine=frequency=1000:beep_factor=4', []);
  const m = measuredIngest(spec, DEFAULT_ENCODE, { renditions: [{ width: 320, height: 180, bitrateKbps: 200 }], onRows: (r) => rows.push(...r), log });
  try {
    await until(() => rows.length >= 30, 30_000);
    const pid = ffmpegPid();
    const [planesBefore, writtenBefore] = [m.referencePlanes().read, bytesWritten(pid)];
    const started = Date.now();
    while (Date.now() - started < BLOCK_MS); // the main thread busy, as a burst of work blocks it
    const [planes, written] = [m.referencePlanes().read - planesBefore, bytesWritten(pid) - writtenBefore];
    t.diagnostic(`during the block: ${planes} planes read, FFmpeg wrote ${written} bytes`);
    // 60 frames come in 2 s at 30 fps; FFmpeg held would have written about one plane.
    assert.ok(planes >= 30, `${planes} reference planes read during the block`);
    // Each frame: its 640x360 and 320x180 I420 pictures to the encoders and its Y plane.
    const frameBytes = 640 * 360 * 1.5 + 320 * 180 * 1.5 + 640 * 360;
    assert.ok(written >= 30 * frameBytes, `FFmpeg wrote ${written} bytes during the block, ${(written / frameBytes).toFixed(1)} frames' worth`);
    // And the measurement goes on after it.
    const rowsAfter = rows.length;
    await until(() => rows.length >= rowsAfter + 60, 30_000);
  } finally {
    m.close();
  }
});
