/**
 * A viewer's control inputs as JSON lines, so a session can be replayed
 * through the core: the first line holds the core's parameters, each further
 * line one input with what the core answered then (decision, rate, gamma).
 */
import type { FlowDecision } from '../pels/flowPolicy';
import { ControlCore, type ControlCoreParams, type ControlOutput } from './controlCore';
import type { ControlInput } from './input';

export interface RecordingHeader {
  recording: 'control';
  params: ControlCoreParams;
}

export interface RecordedStep {
  input: ControlInput;
  decision: FlowDecision | null;
  rateKbps: number;
  gamma: number;
}

export function headerLine(params: ControlCoreParams): string {
  return JSON.stringify({ recording: 'control', params } satisfies RecordingHeader);
}

/** One step as a line; a frame is kept to what the core reads of it (a server's frame also holds its payload). */
export function stepLine(input: ControlInput, output: ControlOutput): string {
  const kept: ControlInput =
    input.kind === 'frame'
      ? { ...input, frame: { temporalId: input.frame.temporalId, keyframe: input.frame.keyframe, bytes: input.frame.bytes, ...(input.frame.layerSync !== undefined ? { layerSync: input.frame.layerSync } : {}) } }
      : input;
  return JSON.stringify({ input: kept, decision: output.decision, rateKbps: output.state.rateKbps, gamma: output.state.gamma } satisfies RecordedStep);
}

export function parseRecording(text: string): { params: ControlCoreParams; steps: RecordedStep[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines.length > 0 ? (JSON.parse(lines[0]!) as Partial<RecordingHeader>) : {};
  if (header.recording !== 'control' || !header.params) throw new Error('not a control recording: its first line must hold { "recording": "control", "params": ... }');
  return { params: header.params, steps: lines.slice(1).map((l) => JSON.parse(l) as RecordedStep) };
}

/** A step whose replay answered otherwise than the recording says. */
export interface ReplayMismatch {
  step: number;
  recorded: Omit<RecordedStep, 'input'>;
  replayed: Omit<RecordedStep, 'input'>;
}

/** Feeds the recorded inputs to a new core with the recorded parameters; the steps that came out differently. */
export function replay(recording: { params: ControlCoreParams; steps: readonly RecordedStep[] }): ReplayMismatch[] {
  const core = new ControlCore(recording.params);
  const mismatches: ReplayMismatch[] = [];
  recording.steps.forEach(({ input, ...recorded }, step) => {
    const out = core.step(input);
    const replayed = { decision: out.decision, rateKbps: out.state.rateKbps, gamma: out.state.gamma };
    if (JSON.stringify(replayed) !== JSON.stringify(recorded)) mismatches.push({ step, recorded, replayed });
  });
  return mismatches;
}
