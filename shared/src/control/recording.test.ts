import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { TEMPORAL_PATTERN } from '../pels/frame';
import { MKC_PAPER_GAINS } from '../pels/mkc';
import { probeBoardFor, RENDITION_POLICY_DEFAULTS } from '../pels/renditionPolicy';
import { ControlCore, type ControlCoreParams } from './controlCore';
import type { ControlInput } from './input';
import { headerLine, parseRecording, RecordingContext, replay, stepLine } from './recording';
import { CLIP_MODEL, LOSS_EPISODE, simulatedParams, simulateViewer } from './simulatedViewerForTests';
import { streamContext } from './streamContext';

/**
 * The first 40 s or so of one viewer of a two-rendition stream, recorded by a server with CONTROL_RECORD_DIR (a real
 * player in Chromium, e2e renditions.spec: the link narrows at 15 s and widens at 35 s).
 */
const SERVER_RECORDING = readFileSync(new URL('../../testdata/control-recording.jsonl', import.meta.url), 'utf8');

test("a server's recording replays through a new core to the same renditions, keyframe requests, decisions, rates and gammas", () => {
  const recording = parseRecording(SERVER_RECORDING);
  assert.deepEqual(replay(recording), []);
  // Not a trivial session: frames were decided, reports stepped the rate, the bounds moved, the viewer moved down and up.
  const kinds = new Set(recording.steps.map((s) => s.input.kind));
  assert.deepEqual([...kinds].sort(), ['frames', 'rate-bounds', 'receiver-reports', 'rendition-rates', 'tick']);
  const rates = new Set(recording.steps.map((s) => s.rateKbps));
  assert.ok(rates.size > 5, `${rates.size} rates`);
  assert.ok(recording.steps.some((s) => s.decision?.frame?.color === 'red') && recording.steps.some((s) => s.decision?.frame?.color === 'yellow'));
  const renditions = recording.steps.flatMap((s) => (s.decision ? [s.decision.rendition] : []));
  assert.deepEqual([...new Set(renditions)].sort(), [0, 1]);
  assert.ok(recording.steps.some((s) => s.keyframeRequest !== undefined) && recording.steps.some((s) => s.asked?.length));
});

test('a replay that comes out otherwise is reported, step by step', () => {
  const recording = parseRecording(SERVER_RECORDING);
  // Every packet lost in the first report that stepped the rate: every later rate differs.
  const i = recording.steps.findIndex((s, k) => k > 0 && s.input.kind === 'receiver-reports' && s.rateKbps !== recording.steps[k - 1]!.rateKbps);
  const input = recording.steps[i]!.input as Extract<ControlInput, { kind: 'receiver-reports' }>;
  const streams = Object.fromEntries(Object.entries(input.streams).map(([c, st]) => [c, { ...st, packetsLost: st.packetCount, fractionLost: 255 }]));
  const tampered = recording.steps.map((s, k) => (k === i ? { ...s, input: { ...input, streams } } : s));
  const mismatches = replay({ params: recording.params, steps: tampered });
  assert.equal(mismatches[0]?.step, i);
  assert.notEqual(mismatches[0]!.replayed.rateKbps, mismatches[0]!.recorded.rateKbps);
});

test('lines written as a core runs parse back and replay; a frame keeps only what the core reads', () => {
  const params: ControlCoreParams = { origin: 'v9', control: { mkc: { ...MKC_PAPER_GAINS, initialKbps: 300, minKbps: 200, maxKbps: 900 } }, feedback: 'router', mode: 'pels', startMs: 0, seed: 9 };
  const core = new ControlCore(params);
  const lines = [headerLine(params)];
  const inputs: ControlInput[] = [
    ...Array.from({ length: 12 }, (_, i): ControlInput => ({ kind: 'frames', atMs: i * 33, frames: [Object.assign({ temporalId: TEMPORAL_PATTERN[i % 4]!, keyframe: i === 0, bytes: 1500 }, { data: Buffer.alloc(4) })] })),
    { kind: 'router-feedback', atMs: 400, epoch: 1, lossFraction: 0.1, origin: 'r1', sentAtMs: 370 },
    { kind: 'mode', atMs: 450, mode: 'best-effort' },
    { kind: 'tick', atMs: 500 },
  ];
  for (const input of inputs) lines.push(stepLine(input, core.step(input)));
  assert.doesNotMatch(lines[1]!, /data/);
  const recording = parseRecording(lines.join('\n'));
  assert.equal(recording.steps.length, inputs.length);
  assert.deepEqual(replay(recording), []);
});

test('a file that is not a recording is refused with a reason', () => {
  assert.throws(() => parseRecording('{"input":{}}\n'), /not a control recording/);
  assert.throws(() => parseRecording(''), /not a control recording/);
});

test("two viewers sharing a stream's probe board and PSNR model: each one's recording replays alone, every rendition, UPTA and frame decision", () => {
  const board = probeBoardFor(RENDITION_POLICY_DEFAULTS);
  const recordings = [1, 2].map((seed) => {
    const params = simulatedParams(seed);
    const context = new RecordingContext(streamContext({ board, model: () => CLIP_MODEL }));
    const core = new ControlCore(params, context);
    // The second viewer meets the board as the first left it: what it was told depends on the other viewer.
    const lines = [headerLine(params)];
    const recorded = (input: ControlInput) => {
      const out = core.step(input);
      lines.push(stepLine(input, out, context.take()));
      return out;
    };
    simulateViewer({ step: recorded, allows: (c) => core.allows(c) }, LOSS_EPISODE);
    return parseRecording(lines.join('\n'));
  });
  for (const recording of recordings) {
    assert.deepEqual(replay(recording), []);
    const steps = recording.steps;
    assert.ok(new Set(steps.map((s) => s.decision?.rendition).filter((r) => r !== undefined)).size === 2, 'both renditions were sent');
    assert.ok(steps.some((s) => s.keyframeRequest !== undefined) && steps.some((s) => s.colors !== undefined) && steps.some((s) => s.asked?.length));
  }
  // Replayed with the answers of a board of its own, the second viewer's choice comes out otherwise.
  const [, second] = recordings;
  const unasked = second!.steps.map(({ asked: _asked, ...s }) => s);
  assert.ok(replay({ params: second!.params, steps: unasked }).some((m) => m.askedOtherwise));
});
