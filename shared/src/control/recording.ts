/**
 * A viewer's control inputs as JSON lines, so a session can be replayed
 * through the core: the first line holds the core's parameters, each further
 * line one input with what the core answered then (the rendition and frame
 * decision, keyframe request, UPTA's colors, rate, gamma) and what it asked of
 * its stream during the step (the probe board's and PSNR models' answers,
 * which depend on other viewers and the stream's tables, not on this
 * viewer's inputs).
 */
import type { Color } from '../pels/color';
import type { FrameInfo } from '../pels/frame';
import type { ProbeBoardView } from '../pels/probeBoard';
import { ControlCore, type ControlCoreParams, type ControlOutput, type FramesDecision } from './controlCore';
import type { ControlInput } from './input';
import type { StreamContext } from './streamContext';

export interface RecordingHeader {
  recording: 'control';
  params: ControlCoreParams;
}

/** An answer the stream gave the core: a probe board's (claim, probingOther, hurtOthers) or a PSNR model's. */
export type Answer = boolean | number | null;

/** What the core answered to one input (keyframeRequest, colors and asked only when there are any). */
export interface StepOutcome {
  decision: FramesDecision | null;
  keyframeRequest?: number;
  colors?: Color[];
  rateKbps: number;
  gamma: number;
  asked?: Answer[];
}

export interface RecordedStep extends StepOutcome {
  input: ControlInput;
}

export function headerLine(params: ControlCoreParams): string {
  return JSON.stringify({ recording: 'control', params } satisfies RecordingHeader);
}

/** One step as a line; a frame is kept to what the core reads of it (a server's frame also holds its payload). */
export function stepLine(input: ControlInput, output: ControlOutput, asked: readonly Answer[] = []): string {
  const kept: ControlInput = input.kind === 'frames' ? { ...input, frames: input.frames.map(keptFrame) } : input;
  return JSON.stringify({ input: kept, ...outcome(output, asked) } satisfies RecordedStep);
}

function keptFrame(f: FrameInfo): FrameInfo {
  return { temporalId: f.temporalId, keyframe: f.keyframe, bytes: f.bytes, ...(f.layerSync !== undefined ? { layerSync: f.layerSync } : {}) };
}

function outcome(output: ControlOutput, asked: readonly Answer[]): StepOutcome {
  const { decision, keyframeRequest, colors, state } = output;
  return {
    decision,
    ...(keyframeRequest !== null ? { keyframeRequest } : {}),
    ...(colors !== null ? { colors } : {}),
    rateKbps: state.rateKbps,
    gamma: state.gamma,
    ...(asked.length ? { asked: [...asked] } : {}),
  };
}

export function parseRecording(text: string): { params: ControlCoreParams; steps: RecordedStep[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines.length > 0 ? (JSON.parse(lines[0]!) as Partial<RecordingHeader>) : {};
  if (header.recording !== 'control' || !header.params) throw new Error('not a control recording: its first line must hold { "recording": "control", "params": ... }');
  return { params: header.params, steps: lines.slice(1).map((l) => JSON.parse(l) as RecordedStep) };
}

/** The stream as a recording core sees it: each answer is kept until the step's line takes it. */
export class RecordingContext implements StreamContext {
  readonly board: ProbeBoardView;
  private answers: Answer[] = [];

  constructor(private readonly inner: StreamContext) {
    const b = inner.board;
    this.board = {
      claim: (who, nowMs) => this.keep(b.claim(who, nowMs)),
      release: (who, nowMs) => b.release(who, nowMs),
      held: () => b.held(),
      probingOther: (who, nowMs) => this.keep(b.probingOther(who, nowMs)),
      lossBegan: (who, nowMs) => b.lossBegan(who, nowMs),
      hurtOthers: (who, nowMs) => this.keep(b.hurtOthers(who, nowMs)),
    };
  }

  expectedPsnr(...args: Parameters<StreamContext['expectedPsnr']>): number | null {
    return this.keep(this.inner.expectedPsnr(...args));
  }

  /** The answers given since the last take, in order. */
  take(): Answer[] {
    const out = this.answers;
    this.answers = [];
    return out;
  }

  private keep<T extends Answer>(answer: T): T {
    this.answers.push(answer);
    return answer;
  }
}

/** The stream as a replayed core sees it: the recorded answers of the step, in order. */
class ReplayedContext implements StreamContext {
  readonly board: ProbeBoardView = {
    claim: () => this.next() === true,
    release: () => {},
    held: () => {},
    probingOther: () => this.next() as number | null,
    lossBegan: () => {},
    hurtOthers: () => this.next() === true,
  };
  private answers: Answer[] = [];
  private overrun = false;

  expectedPsnr(): number | null {
    return this.next() as number | null;
  }

  load(answers: readonly Answer[] = []): void {
    this.answers = [...answers];
    this.overrun = false;
  }

  /** Whether the step asked as many questions as the recording answered. */
  get matched(): boolean {
    return !this.overrun && this.answers.length === 0;
  }

  private next(): Answer {
    if (this.answers.length === 0) {
      this.overrun = true;
      return null;
    }
    return this.answers.shift()!;
  }
}

/** A step whose replay answered otherwise than the recording says. */
export interface ReplayMismatch {
  step: number;
  recorded: StepOutcome;
  replayed: StepOutcome;
  /** The replayed core asked its stream more or fewer questions than the recorded one. */
  askedOtherwise: boolean;
}

/** Feeds the recorded inputs to a new core with the recorded parameters and stream answers; the steps that came out differently. */
export function replay(recording: { params: ControlCoreParams; steps: readonly RecordedStep[] }): ReplayMismatch[] {
  const context = new ReplayedContext();
  const core = new ControlCore(recording.params, context);
  const mismatches: ReplayMismatch[] = [];
  recording.steps.forEach(({ input, ...recorded }, step) => {
    context.load(recorded.asked);
    const out = core.step(input);
    const replayed = outcome(out, recorded.asked ?? []);
    if (!context.matched || canonical(replayed) !== canonical(recorded)) mismatches.push({ step, recorded, replayed, askedOtherwise: !context.matched });
  });
  return mismatches;
}

/** An outcome's values in a fixed order, so a recording's key order does not matter. */
function canonical(o: StepOutcome): string {
  return JSON.stringify([o.decision, o.keyframeRequest ?? null, o.colors ?? null, o.rateKbps, o.gamma, o.asked ?? []]);
}
