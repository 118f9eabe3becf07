import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseProbe } from './audioProbe';
import { OggOpusReader } from './oggOpusReader';
import { parseSource } from './sourcePolicy';
import { audioFd, audioPlan, ffmpegArgs, OPUS_ENCODE_ARGS, soundArgs, type ReadableSource } from './sourceSpec';

const file = parseSource('/media/clip.mkv') as ReadableSource;

test("a source's Opus passes through; other sound is encoded; no sound, no audio output", () => {
  assert.equal(audioPlan(file, { codec: 'opus', channels: 2 }), 'copy');
  assert.equal(audioPlan(file, { codec: 'opus', channels: 1 }), 'copy');
  // A browser plays mono and stereo Opus only: surround is decoded and encoded as stereo.
  assert.equal(audioPlan(file, { codec: 'opus', channels: 6 }), 'encode');
  assert.equal(audioPlan(file, { codec: 'aac', channels: 2 }), 'encode');
  assert.equal(audioPlan(file, { codec: 'mp2', channels: 2 }), 'encode');
  assert.equal(audioPlan(file, null), 'none');
  assert.equal(audioPlan(parseSource('lavfi:testsrc2|sine'), null), 'encode');
  assert.equal(audioPlan(parseSource('lavfi:testsrc2'), { codec: 'opus', channels: 2 }), 'none');
});

test("a URL's sound rides with the video: Opus 48 kHz with FEC, or a copy, as Ogg on the fd after the renditions", () => {
  const url = parseSource('https://example.com/live.m3u8') as ReadableSource;
  const lower = [{ width: 320, height: 180, bitrateKbps: 200 }];
  const encoded = ffmpegArgs(url, undefined, lower, 'encode');
  assert.equal(audioFd(1), 5);
  assert.deepEqual(encoded.slice(encoded.lastIndexOf('-map')), ['-map', '0:a:0', ...OPUS_ENCODE_ARGS, '-f', 'ogg', '-page_duration', '20000', '-flush_packets', '1', 'pipe:5']);
  for (const [k, v] of [['-ar', '48000'], ['-fec', '1'], ['-c:a', 'libopus']] as const) assert.equal(OPUS_ENCODE_ARGS[OPUS_ENCODE_ARGS.indexOf(k) + 1], v);
  const copied = ffmpegArgs(url, undefined, [], 'copy');
  assert.deepEqual(copied.slice(copied.lastIndexOf('-map')), ['-map', '0:a:0', '-c:a', 'copy', '-f', 'ogg', '-page_duration', '20000', '-flush_packets', '1', 'pipe:4']);
  assert.equal(soundArgs(url, 'encode'), null);
  assert.equal(soundArgs({ kind: 'published', format: 'flv' }, 'encode'), null);
  assert.ok(!ffmpegArgs(file, undefined, [], 'none').some((a) => a.includes(':a')));
  assert.equal(soundArgs(file, 'none'), null);
});

test("a lavfi graph's and a file's sound have an FFmpeg of their own, on its stdout; the file's is decoded by both, so both loop at the same instants", () => {
  const lavfi = parseSource('lavfi:testsrc2|sine=frequency=1000') as ReadableSource;
  const video = ffmpegArgs(lavfi, undefined, [], 'encode');
  assert.ok(!video.includes('sine=frequency=1000') && !video.some((a) => a.includes(':a')), 'no sound in the video\'s FFmpeg');
  assert.deepEqual(soundArgs(lavfi, 'encode'), ['-hide_banner', '-nostdin', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'sine=frequency=1000', '-map', '0:a:0', ...OPUS_ENCODE_ARGS, '-f', 'ogg', '-page_duration', '20000', '-flush_packets', '1', 'pipe:1']);
  const discarded = ['-map', '0:a:0', '-f', 'null', '-'];
  for (const plan of ['encode', 'copy'] as const) {
    const v = ffmpegArgs(file, undefined, [], plan);
    assert.deepEqual(v.slice(-5), discarded, `${plan}: the video's FFmpeg decodes the sound and throws it away`);
    assert.ok(!v.includes('ogg'));
    const a = soundArgs(file, plan)!;
    assert.deepEqual(a.slice(a.indexOf('-re'), a.indexOf('-i') + 2), ['-re', '-stream_loop', '-1', '-protocol_whitelist', 'file', '-i', 'file:/media/clip.mkv']);
    assert.equal(a.includes('pipe:1'), true);
    // A copy is not decoded unless an output decodes it.
    assert.equal(a.join(' ').endsWith(discarded.join(' ')), plan === 'copy');
  }
});

test("ffprobe's answer: the first audio stream, or none", () => {
  assert.deepEqual(parseProbe('{"programs":[],"streams":[{"codec_name":"opus","channels":2}]}'), { codec: 'opus', channels: 2 });
  assert.equal(parseProbe('{"programs":[],"streams":[]}'), null);
  assert.equal(parseProbe('not json'), null);
});

test("this machine's FFmpeg loops a file's video and its sound at the same instants, with the arguments the ingest gives them", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pels-loop-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // 2 s of video and 2.5 s of sound: a loop that followed the video would start 0.5 s early.
  const clips = { copy: join(dir, 'opus.mkv'), encode: join(dir, 'aac.mkv') };
  for (const [plan, clip] of Object.entries(clips))
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=2', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2.5', '-c:v', 'mpeg2video', '-c:a', plan === 'copy' ? 'libopus' : 'aac', clip]);
  const enc = { width: 160, height: 90, frameRate: 30, bitrateKbps: 100, keyframeInterval: 60 };
  // As the ingest runs them, but LOOPS more plays as fast as FFmpeg goes.
  const LOOPS = 19;
  const bounded = (args: string[], loops: number) => args.filter((a) => a !== '-re').map((a, i, all) => (all[i - 1] === '-stream_loop' ? String(loops) : a));
  const soundEndS = (args: string[]) => {
    const packets = new OggOpusReader().push(execFileSync('ffmpeg', args, { maxBuffer: 1 << 26 }));
    return (packets.at(-1)!.startSample + packets.at(-1)!.samples) / 48000;
  };
  for (const [plan, clip] of Object.entries(clips) as ['copy' | 'encode', string][]) {
    const spec = { kind: 'file' as const, path: clip };
    const soundLoopS = soundEndS(bounded(soundArgs(spec, plan)!, LOOPS)) / (LOOPS + 1);
    // The reference planes (fd 3) to /dev/null, as when nobody measures.
    const devNull = openSync('/dev/null', 'w');
    t.after(() => closeSync(devNull));
    const video = spawnSync('ffmpeg', bounded(ffmpegArgs(spec, enc, [], plan), LOOPS), { stdio: ['ignore', 'pipe', 'pipe', devNull], maxBuffer: 1 << 28 });
    assert.equal(video.status, 0, String(video.stderr));
    // The video ends 2 s into its last play; its frames (30 a second) give its loop to 33 ms / LOOPS.
    const videoLoopS = (video.stdout.length / (enc.width * enc.height * 1.5) / enc.frameRate - 2) / LOOPS;
    // A copied sound not decoded loops about 6 ms a loop shorter here, a video whose FFmpeg does not decode it 0.5 s.
    assert.ok(Math.abs(videoLoopS - soundLoopS) < 0.002, `${plan}: the video's loop ${videoLoopS} s, the sound's ${soundLoopS} s`);
  }
});
