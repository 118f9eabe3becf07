import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { ControlCore, type ControlCoreParams, type ControlOutput, type ControlSnapshot } from '@pels/shared/control/controlCore';
import type { ControlInput } from '@pels/shared/control/input';
import { headerLine, stepLine } from '@pels/shared/control/recording';
import type { FlowDecision } from '@pels/shared/pels/flowPolicy';
import type { FrameInfo } from '@pels/shared/pels/frame';
import type { Logger } from '../log';

export interface ViewerControlOptions {
  params: ControlCoreParams;
  /** Where to write the viewer's inputs as JSON lines (CONTROL_RECORD_DIR); absent: not recorded. */
  recordDir?: string;
  /** Names the recording's file. */
  streamId: string;
  log: Logger;
}

/**
 * A viewer's control core as the session feeds it: every input goes through
 * step(), and when asked each one is written to a recording with the core's
 * answer, so the session can be replayed through the core later.
 */
export class ViewerControl {
  private readonly core: ControlCore;
  private recording: WriteStream | null = null;

  constructor(opts: ViewerControlOptions) {
    this.core = new ControlCore(opts.params);
    if (opts.recordDir !== undefined) {
      const path = join(opts.recordDir, `${fileSafe(opts.streamId)}-${fileSafe(opts.params.origin)}.jsonl`);
      const out = createWriteStream(path);
      out.on('error', (err) => {
        // Recording is a diagnosis aid: its failure never touches the viewer.
        opts.log.warn({ err: err.message, path }, 'control recording stopped');
        this.recording = null;
      });
      out.write(`${headerLine(opts.params)}\n`);
      this.recording = out;
    }
  }

  step(input: ControlInput): ControlOutput {
    const out = this.core.step(input);
    this.recording?.write(`${stepLine(input, out)}\n`);
    return out;
  }

  /** The flow's per-frame question, answered by the core. */
  decide(frame: FrameInfo, nowMs: number): FlowDecision {
    return this.step({ kind: 'frame', atMs: nowMs, frame }).decision!;
  }

  get state(): ControlSnapshot {
    return this.core.state;
  }

  get awaitingReports(): boolean {
    return this.core.awaitingReports;
  }

  /** Ends the recording; resolves once it is written out. */
  close(): Promise<void> {
    const out = this.recording;
    this.recording = null;
    return new Promise((resolve) => (out ? out.end(resolve) : resolve()));
  }
}

function fileSafe(name: string): string {
  return name.replace(/[^\w.-]/g, '_');
}
