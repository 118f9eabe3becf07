import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { AUDIO_TRACK, MatroskaWriter, VIDEO_TRACK } from './matroskaWriter';

/** Ten frames of H.264 in Annex B, each starting at its access unit delimiter (x264's aud=1). */
function h264Frames(): Buffer[] {
  const out = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30', '-frames:v', '10', '-c:v', 'libx264', '-bf', '0', '-x264-params', 'aud=1', '-f', 'h264', 'pipe:1'], { maxBuffer: 1 << 24 });
  assert.equal(out.status, 0, out.stderr.toString());
  const data = out.stdout;
  const starts: number[] = [];
  for (let i = 0; i + 4 < data.length; i++) if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 1 && (data[i + 3]! & 0x1f) === 9) starts.push(i > 0 && data[i - 1] === 0 ? i - 1 : i);
  return starts.map((s, k) => data.subarray(s, starts[k + 1] ?? data.length));
}

test('FFmpeg reads the stream: H.264 of the right size and Opus, at the times given, across clusters', () => {
  const frames = h264Frames();
  assert.equal(frames.length, 10);
  const w = new MatroskaWriter(true);
  // An Opus packet of 20 ms of silence (CELT, one frame, TOC 0xf8).
  const opus = Buffer.from([0xf8, 0xff, 0xfe]);
  const parts = [w.header()];
  frames.forEach((f, i) => {
    // Past 5 s between frames 4 and 5: a new cluster.
    const t = i * 33 + (i >= 5 ? 6000 : 0);
    parts.push(w.block(VIDEO_TRACK, t, i === 0, f), w.block(AUDIO_TRACK, t + 5, true, opus));
  });
  const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,channels,sample_rate:packet=stream_index,pts_time', '-of', 'json', '-f', 'matroska', 'pipe:0'], { input: Buffer.concat(parts) });
  assert.equal(probe.status, 0, probe.stderr.toString());
  const info = JSON.parse(probe.stdout.toString()) as { streams: Record<string, unknown>[]; packets: { stream_index: number; pts_time: string }[] };
  assert.deepEqual(info.streams.map((s) => s.codec_name), ['h264', 'opus']);
  assert.deepEqual([info.streams[0]!.width, info.streams[0]!.height], [320, 180]);
  assert.deepEqual([info.streams[1]!.channels, info.streams[1]!.sample_rate], [2, '48000']);
  const videoTimes = info.packets.filter((p) => p.stream_index === 0).map((p) => Math.round(Number(p.pts_time) * 1000));
  assert.deepEqual(videoTimes, frames.map((_, i) => i * 33 + (i >= 5 ? 6000 : 0)));
});
