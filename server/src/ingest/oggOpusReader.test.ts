import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { OggOpusReader } from './oggOpusReader';

/** Two seconds of a tone through FFmpeg's libopus and Ogg muxer, with the ingest's settings. */
function ogg(pageDurationUs: number): Buffer {
  return execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2',
    '-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', '-frame_duration', '20', '-f', 'ogg', '-page_duration', String(pageDurationUs), 'pipe:1',
  ]);
}

test('FFmpeg Ogg Opus: every 20 ms packet, in order, timed from the source start less the encoder delay', () => {
  const bytes = ogg(20000);
  const reader = new OggOpusReader();
  // In odd slices, as a pipe delivers it.
  const packets = [];
  for (let i = 0; i < bytes.length; i += 777) packets.push(...reader.push(bytes.subarray(i, i + 777)));
  assert.equal(packets.length, 101); // 2 s of sound, plus the encoder's delay, in 20 ms packets
  assert.ok(packets.every((p) => p.samples === 960));
  // libopus delays its output by 312 samples (the pre-skip): the first packet starts that much before the sound.
  assert.equal(packets[0]!.startSample, -312);
  // The last page's granule marks where the sound ends (RFC 7845 end trimming): its packet reads as starting earlier.
  packets.slice(0, -1).forEach((p, i) => assert.equal(p.startSample, -312 + 960 * i));
});

test('pages of many packets give the same timeline', () => {
  const one = new OggOpusReader().push(ogg(20000)).map((p) => p.startSample);
  const many = new OggOpusReader().push(ogg(1_000_000)).map((p) => p.startSample);
  assert.deepEqual(many, one);
});

test('bytes that are not Ogg are refused', () => {
  assert.throws(() => new OggOpusReader().push(Buffer.from('RIFF....WAVEfmt and then some more bytes')), /not an Ogg page/);
});
