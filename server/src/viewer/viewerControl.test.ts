import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import type { ControlCoreParams } from '@pels/shared/control/controlCore';
import { parseRecording, replay } from '@pels/shared/control/recording';
import { TEMPORAL_PATTERN } from '@pels/shared/pels/frame';
import { MKC_PAPER_GAINS } from '@pels/shared/pels/mkc';
import { streamContext } from '@pels/shared/control/streamContext';
import type { FrameInfo } from '@pels/shared/pels/frame';
import { ViewerControl } from './viewerControl';

const params: ControlCoreParams = { origin: 'v/1', control: { mkc: { ...MKC_PAPER_GAINS, initialKbps: 300, minKbps: 200, maxKbps: 900 } }, feedback: 'rtcp', mode: 'pels', startMs: 0, seed: 1 };
const context = streamContext({});
const decide = (control: ViewerControl, frame: FrameInfo, atMs: number) => control.step({ kind: 'frames', atMs, frames: [frame] }).decision!.frame!;
const log = pino({ level: 'silent' });

test('with a record directory every input goes to STREAM-VIEWER.jsonl, which replays to the same answers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pels-record-'));
  const control = new ViewerControl({ params, context, recordDir: dir, streamId: 'default', log });
  for (let i = 0; i < 8; i++) decide(control, Object.assign({ temporalId: TEMPORAL_PATTERN[i % 4]!, keyframe: i === 0, bytes: 1200 }, { data: Buffer.alloc(1200) }), i * 33);
  control.step({ kind: 'receiver-reports', atMs: 300, streams: { green: { packetCount: 10, packetsLost: 0, fractionLost: 0, jitter: 3 }, yellow: { packetCount: 10, packetsLost: 2, fractionLost: 51, jitter: 3 } } });
  control.step({ kind: 'rate-bounds', atMs: 400, minKbps: 250, maxKbps: 800 });
  await control.close();
  // The viewer ID is made safe for a file name.
  assert.deepEqual(readdirSync(dir), ['default-v_1.jsonl']);
  const text = readFileSync(join(dir, 'default-v_1.jsonl'), 'utf8');
  const recording = parseRecording(text);
  assert.equal(recording.steps.length, 10);
  assert.deepEqual(replay(recording), []);
});

test('a recording that cannot be written stops with a warning; the viewer goes on', async () => {
  const warnings: string[] = [];
  const warnLog = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
  const control = new ViewerControl({ params, context, recordDir: '/nonexistent/dir', streamId: 'default', log: warnLog });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(decide(control, { temporalId: 0, keyframe: true, bytes: 1000 }, 0).send, true);
  await control.close();
  assert.match(warnings.join(''), /control recording stopped/);
});

test('without a record directory nothing is written', async () => {
  const control = new ViewerControl({ params, context, streamId: 'default', log });
  assert.equal(decide(control, { temporalId: 0, keyframe: true, bytes: 1000 }, 0).color, 'green');
  await control.close();
});
