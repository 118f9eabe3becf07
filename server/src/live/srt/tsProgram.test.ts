import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { findProgram, TS_PACKET, TsFromKeyframe } from './tsProgram';

/** A second of MPEG-TS as FFmpeg writes it for an SRT publisher, with the given outputs. */
function ts(...codecs: string[]): Buffer {
  return tsWith(['-g', '250'], ...codecs);
}

function tsWith(videoArgs: string[], ...codecs: string[]): Buffer {
  const out = spawnSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error',
    '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=1', '-f', 'lavfi', '-i', 'sine=duration=1',
    '-map', '0:v', ...(codecs.includes('aac') ? ['-map', '1:a', '-c:a', 'aac'] : []), '-c:v', 'libx264', '-preset', 'ultrafast', ...videoArgs,
    '-f', 'mpegts', 'pipe:1',
  ], { maxBuffer: 1 << 24 });
  assert.equal(out.status, 0, out.stderr.toString());
  return out.stdout;
}

test('the program map says H.264 and AAC, or H.264 alone; before the PMT nothing is known', () => {
  const both = ts('aac');
  assert.deepEqual(findProgram(both), { video: 'h264', videoPid: 256, audio: { codec: 'aac', channels: 2 } });
  assert.deepEqual(findProgram(ts()), { video: 'h264', videoPid: 256, audio: null });
  // The PAT alone (the first packet): the PMT is yet to come.
  assert.equal(findProgram(both.subarray(0, TS_PACKET)), undefined);
  // Bytes before the first sync byte (a payload cut mid-packet) are skipped.
  assert.deepEqual(findProgram(Buffer.concat([Buffer.from([1, 2, 3]), both])), { video: 'h264', videoPid: 256, audio: { codec: 'aac', channels: 2 } });
});

test('garbage is no program, and never an exception', () => {
  const junk = Buffer.alloc(TS_PACKET * 20, 0x47);
  assert.equal(findProgram(junk), undefined);
  for (let seed = 1; seed < 200; seed++) {
    const b = Buffer.from(Array.from({ length: TS_PACKET * 4 }, (_, i) => (i % TS_PACKET === 0 ? 0x47 : (seed * 7919 * (i + 1)) & 0xff)));
    findProgram(b);
  }
});

test('a stream again from its next keyframe: the tables, then the packets from the keyframe on, which decode from a keyframe; in chunks cut anywhere', () => {
  // Keyframes at frames 0, 10 and 20.
  const stream = tsWith(['-g', '10', '-sc_threshold', '0', '-x264-params', 'scenecut=0'], 'aac');
  const gate = new TsFromKeyframe(findProgram(stream)!.videoPid!, false, stream.subarray(0, 3 * TS_PACKET));
  // The tables (SDT, PAT, PMT) from the stream's start, then from the middle of frame 10's packets on.
  const from = Math.floor(stream.length * 0.45) - 7;
  const out: Buffer[] = [];
  for (let at = from; at < stream.length; at += 1000) out.push(gate.push(stream.subarray(at, at + 1000)));
  const resumed = Buffer.concat(out);
  const probe = spawnSync('ffprobe', ['-v', 'error', '-select_streams', 'v', '-show_entries', 'frame=key_frame', '-of', 'csv=p=0', '-i', 'pipe:0'], { input: resumed });
  const keys = probe.stdout.toString().trim().split('\n');
  assert.equal(keys.length, 10, probe.stderr.toString());
  assert.equal(keys[0], '1');
  assert.equal(resumed.length % TS_PACKET, 0);
});
