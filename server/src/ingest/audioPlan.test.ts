import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseProbe } from './audioProbe';
import { parseSource } from './sourcePolicy';
import { audioFd, audioPlan, ffmpegArgs, OPUS_ENCODE_ARGS, type ReadableSource } from './sourceSpec';

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

test('the audio output: Opus 48 kHz with FEC, or a copy, as Ogg on the fd after the renditions', () => {
  const lower = [{ width: 320, height: 180, bitrateKbps: 200 }];
  const encoded = ffmpegArgs(parseSource('lavfi:testsrc2|sine=frequency=1000') as ReadableSource, undefined, lower, 'encode');
  assert.equal(audioFd(1), 5);
  const tail = encoded.slice(encoded.lastIndexOf('-map'));
  assert.deepEqual(tail, ['-map', '1:a:0', ...OPUS_ENCODE_ARGS, '-f', 'ogg', '-page_duration', '20000', '-flush_packets', '1', 'pipe:5']);
  assert.deepEqual(encoded.slice(encoded.indexOf('sine=frequency=1000') - 4, encoded.indexOf('sine=frequency=1000') + 1), ['-re', '-f', 'lavfi', '-i', 'sine=frequency=1000']);
  for (const [k, v] of [['-ar', '48000'], ['-fec', '1'], ['-c:a', 'libopus']] as const) assert.equal(OPUS_ENCODE_ARGS[OPUS_ENCODE_ARGS.indexOf(k) + 1], v);
  const copied = ffmpegArgs(file, undefined, [], 'copy');
  assert.deepEqual(copied.slice(copied.lastIndexOf('-map'), copied.lastIndexOf('-map') + 4), ['-map', '0:a:0', '-c:a', 'copy']);
  assert.equal(copied.at(-1), 'pipe:4');
  assert.ok(!ffmpegArgs(file, undefined, [], 'none').some((a) => a.includes(':a')));
});

test("ffprobe's answer: the first audio stream, or none", () => {
  assert.deepEqual(parseProbe('{"programs":[],"streams":[{"codec_name":"opus","channels":2}]}'), { codec: 'opus', channels: 2 });
  assert.equal(parseProbe('{"programs":[],"streams":[]}'), null);
  assert.equal(parseProbe('not json'), null);
});
