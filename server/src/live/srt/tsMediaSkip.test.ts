import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { PTS_WRAP_MS } from '../mediaArrivals';
import { findProgram, TS_PACKET } from './tsProgram';
import { TsMediaSkip } from './tsMediaSkip';

/** Three seconds of MPEG-TS as an SRT publisher's FFmpeg writes it: H.264 with a keyframe every 10 frames, AAC, timestamps near the wrap of 2^33. */
function stream(): Buffer {
  const out = spawnSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error',
    '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=3', '-f', 'lavfi', '-i', 'sine=duration=3',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', '10', '-x264-params', 'scenecut=0', '-c:a', 'aac',
    // 1.5 s before the 33-bit PTS wraps: the span dropped is counted across it.
    '-output_ts_offset', String(2 ** 33 / 90000 - 1.5), '-muxdelay', '0', '-f', 'mpegts', 'pipe:1',
  ], { maxBuffer: 1 << 24 });
  assert.equal(out.status, 0, out.stderr.toString());
  return out.stdout;
}

/** ffprobe's packets of one stream: pts (s, unwrapped by ffprobe from the first) and whether each is a keyframe. */
function packets(ts: Buffer, stream: 'v' | 'a'): { pts: number; key: boolean }[] {
  const probe = spawnSync('ffprobe', ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=pts,flags', '-of', 'csv=p=0', '-i', 'pipe:0'], { input: ts, maxBuffer: 1 << 24 });
  assert.equal(probe.status, 0, probe.stderr.toString());
  return probe.stdout.toString().split('\n').filter((l) => l.trim()).map((l) => {
    const [pts, flags] = l.split(',');
    return { pts: Number(pts) / 90, key: flags!.startsWith('K') };
  });
}

/** Packets whose continuity counter does not follow the last of their packet id (payload-bearing packets count). */
function continuityBreaks(ts: Buffer): number {
  const last = new Map<number, number>();
  let breaks = 0;
  for (let at = 0; at + TS_PACKET <= ts.length; at += TS_PACKET) {
    const pid = ((ts[at + 1]! & 0x1f) << 8) | ts[at + 2]!;
    if (!(ts[at + 3]! & 0x10) || pid === 0x1fff) continue;
    const cc = ts[at + 3]! & 0x0f;
    if (last.has(pid) && cc !== ((last.get(pid)! + 1) & 0x0f)) breaks++;
    last.set(pid, cc);
  }
  return breaks;
}

const input = stream();
const videoPid = findProgram(input)!.videoPid!;

test('on time: every packet passes as it came, in chunks cut anywhere; each video frame is reported with its PTS (ms), one each 1/30 s', () => {
  const frames: number[] = [];
  const skip = new TsMediaSkip(videoPid, false, 400, (ms, shift) => {
    assert.equal(shift, 0);
    frames.push(ms);
  });
  const out: Buffer[] = [];
  for (let at = 0; at < input.length; at += 1000) out.push(skip.push(input.subarray(at, at + 1000), 0));
  assert.ok(Buffer.concat(out).equals(input));
  assert.equal(frames.length, 90);
  const steps = frames.slice(1).map((t, i) => (t - frames[i]! + PTS_WRAP_MS) % PTS_WRAP_MS);
  assert.ok(steps.every((d) => d > 33 && d < 34), steps.join(' '));
  assert.equal(skip.skip.skips, 0);
});

test('behind past the bound: audio and video dropped up to a keyframe once caught up; what follows has PTS, DTS and PCR moved back over the span dropped (across the wrap) and its continuity counters closed, so the stream reads with no gap', () => {
  const shifts: number[] = [];
  const skip = new TsMediaSkip(videoPid, false, 400, (_ms, shift) => shifts.push(shift));
  const out: Buffer[] = [];
  // The ingest reads nothing from 1 s into the stream until 0.7 s of it were written, then everything at once.
  const stallFrom = Math.floor(input.length / 3);
  const stallTo = Math.floor(input.length * 0.56);
  let unreadSince = 0;
  for (let at = 0; at < input.length; at += 1000) {
    const stalled = at >= stallFrom && at < stallTo;
    const bytes = skip.push(input.subarray(at, at + 1000), stalled ? unreadSince : 0);
    unreadSince = stalled ? unreadSince + bytes.length : 0;
    out.push(bytes);
  }
  const kept = Buffer.concat(out);
  assert.equal(skip.skip.skips, 1);
  assert.equal(continuityBreaks(input), 0);
  assert.equal(continuityBreaks(kept), 0);
  const before = packets(input, 'v');
  const after = packets(kept, 'v');
  assert.equal(before.length, 90);
  const droppedFrames = before.length - after.length;
  assert.ok(droppedFrames >= 10 && droppedFrames <= 40, `${droppedFrames} frames dropped`);
  // One frame interval between every two frames written, the cut included: ffprobe unwraps the 2^33 wrap.
  const steps = after.slice(1).map((p, i) => p.pts - after[i]!.pts);
  assert.ok(steps.every((d) => d > 33 && d < 34), steps.map(Math.round).join(' '));
  // The frames written keep their times up to the cut, and follow on from it.
  assert.deepEqual(after.map((p) => p.pts), before.slice(0, after.length).map((p) => p.pts));
  const cut = shifts.findIndex((s) => s > 0);
  assert.equal(shifts.length, after.length);
  assert.ok(cut > 0 && after[cut]!.key, 'the stream goes on from a keyframe');
  assert.ok(Math.abs(skip.skip.shiftMs - droppedFrames * (100 / 3)) < 2, `${skip.skip.shiftMs} ms dropped for ${droppedFrames} frames`);
  // Sound goes forward: nothing of the span dropped is written after the cut.
  const sound = packets(kept, 'a');
  assert.ok(sound.slice(1).every((p, i) => p.pts > sound[i]!.pts));
  // FFmpeg decodes it all, every frame, no error.
  const decode = spawnSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'null', '-'], { input: kept });
  assert.equal(decode.stderr.toString(), '');
});
