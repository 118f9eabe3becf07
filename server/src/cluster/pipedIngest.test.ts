import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { OpusPacket } from '../ingest/oggOpusReader';
import { PipedIngest } from './pipedIngest';

/** A VP8 keyframe's and an inter frame's first byte (bit 0: 0 key, 1 inter). */
const KEY = Uint8Array.of(0x10, 1, 2);
const INTER = Uint8Array.of(0x11, 1, 2);
/** A 20 ms Opus packet (TOC: config 31, CELT FB 20 ms, one frame). */
const OPUS = Buffer.from([0xf8, 0xff, 0xfe]);

function record(ingest: PipedIngest) {
  const events: { frames: [number, number][]; runs: string[]; audio: OpusPacket[]; rows: [number, number[]][] } = { frames: [], runs: [], audio: [], rows: [] };
  ingest.on('frame', (f, r) => events.frames.push([r, Number(f.pts)]));
  ingest.on('run', (plan) => events.runs.push(plan));
  ingest.on('audio', (p) => events.audio.push(p));
  ingest.onRows((r, rows) => events.rows.push([r, rows.map((x) => x.index)]));
  return events;
}

const row = (index: number): QualityFrame => ({ index, tid: 0, crc: 0, psnr: [] });

test("a pipe is a run: pts from the origin's index at the pipe, each rendition from its keyframe", () => {
  const ingest = new PipedIngest();
  const e = record(ingest);
  ingest.setAudioPlan('encode');
  const asked: number[] = [];
  ingest.pipeUp({ originIndex: 100, audioTimestampBase: 0, frameRate: 30 }, (r) => asked.push(r));
  assert.deepEqual(e.runs, ['encode']);
  ingest.frame(0, { index: 99, data: KEY }); // before the pipe
  ingest.frame(0, { index: 100, data: INTER }); // no keyframe yet
  ingest.frame(0, { index: 101, data: KEY });
  ingest.frame(1, { index: 101, data: INTER });
  ingest.frame(0, { index: 102, data: INTER });
  ingest.frame(1, { index: 102, data: KEY });
  assert.deepEqual(e.frames, [[0, 1], [0, 2], [1, 2]]);
  ingest.requestKeyframe(1);
  assert.deepEqual(asked, [1]);
  // Rows of frames before the pipe are not this run's.
  ingest.qualityRows(0, [row(99), row(100), row(101)]);
  assert.deepEqual(e.rows, [[0, [0, 1]]]);
});

test("the origin started again: the new pipe's indexes from 0 are a run of their own", () => {
  const ingest = new PipedIngest();
  const e = record(ingest);
  ingest.pipeUp({ originIndex: 5000, audioTimestampBase: 7, frameRate: 30 }, () => {});
  ingest.frame(0, { index: 5000, data: KEY });
  ingest.pipeDown();
  ingest.frame(0, { index: 5001, data: INTER });
  ingest.pipeUp({ originIndex: 3, audioTimestampBase: 9, frameRate: 30 }, () => {});
  ingest.frame(0, { index: 3, data: KEY });
  assert.deepEqual(e.frames, [[0, 0], [0, 0]]);
  assert.equal(e.runs.length, 2);
});

test("the sound's RTP timestamps become samples of the run, across the 32-bit wrap", () => {
  const ingest = new PipedIngest();
  const e = record(ingest);
  // Frame index 100 at 30 fps starts at sample 160000 of the origin's timeline.
  const base = 2 ** 32 - 160_000 - 500;
  ingest.pipeUp({ originIndex: 100, audioTimestampBase: base, frameRate: 30 }, () => {});
  for (const offset of [-960, 0, 960, 960 + 2 ** 20]) ingest.audio((base + 160_000 + offset) % 2 ** 32, OPUS);
  assert.deepEqual(
    e.audio.map((p) => p.startSample),
    [-960, 0, 960, 960 + 2 ** 20],
  );
  assert.ok(e.audio.every((p) => p.samples === 960));
});

test("a change of the origin's sound plan starts a run after the last frame; rows keep their place", () => {
  const ingest = new PipedIngest();
  const e = record(ingest);
  ingest.pipeUp({ originIndex: 0, audioTimestampBase: 0, frameRate: 30 }, () => {});
  for (let i = 0; i < 10; i++) ingest.frame(0, { index: i, data: i === 0 ? KEY : INTER });
  ingest.setAudioPlan('none'); // unchanged
  ingest.setAudioPlan('copy');
  assert.deepEqual(e.runs, ['none', 'copy']);
  ingest.frame(0, { index: 10, data: INTER });
  assert.deepEqual(e.frames.at(-1), [0, 0]);
  // Frame 10 is the new run's pts 0; frame 9's row, of the run before, is pts -1: the stream puts it where it was.
  ingest.qualityRows(0, [row(9), row(10)]);
  assert.deepEqual(e.rows, [[0, [-1, 0]]]);
  // Its sound: 1600 samples a frame, counted from frame 10.
  ingest.audio(16_000 + 320, OPUS);
  assert.equal(e.audio[0]!.startSample, 320);
});
