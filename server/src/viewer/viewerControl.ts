import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { ControlCore, type ControlCoreParams, type ControlOutput, type ControlSnapshot } from '@pels/shared/control/controlCore';
import type { ControlInput } from '@pels/shared/control/input';
import { headerLine, RecordingContext, stepLine } from '@pels/shared/control/recording';
import type { StreamContext } from '@pels/shared/control/streamContext';
import type { Color } from '@pels/shared/pels/color';
import type { RenditionState, UptaStatus } from '@pels/shared/protocol/api';
import type { Logger } from '../log';

export interface ViewerControlOptions {
  params: ControlCoreParams;
  /** The stream's probe board and PSNR models, as the core asks them. */
  context: StreamContext;
  /** Where to write the viewer's inputs as JSON lines (CONTROL_RECORD_DIR); absent: not recorded. */
  recordDir?: string;
  /** Names the recording's file. */
  streamId: string;
  log: Logger;
}

/**
 * A viewer's control core as the session feeds it: every input goes through
 * step(), and when asked each one is written to a recording with the core's
 * answer and what the core asked of the stream, so the session can be
 * replayed through the core later.
 */
export class ViewerControl {
  private readonly core: ControlCore;
  private readonly asked: RecordingContext | null;
  private recording: WriteStream | null = null;

  constructor(opts: ViewerControlOptions) {
    this.asked = opts.recordDir !== undefined ? new RecordingContext(opts.context) : null;
    this.core = new ControlCore(opts.params, this.asked ?? opts.context);
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
    const asked = this.asked?.take();
    this.recording?.write(`${stepLine(input, out, asked)}\n`);
    return out;
  }

  get state(): ControlSnapshot {
    return this.core.state;
  }

  get awaitingReports(): boolean {
    return this.core.awaitingReports;
  }

  /** Where the viewer's own keyframe requests go (see ControlCore.keyframeRendition). */
  get keyframeRendition(): number {
    return this.core.keyframeRendition;
  }

  /** Whether UPTA lets the color's stream out now. */
  allows(color: Color): boolean {
    return this.core.allows(color);
  }

  get uptaStatus(): UptaStatus | null {
    return this.core.uptaStatus;
  }

  renditionState(nowMs: number): RenditionState {
    return this.core.renditionState(nowMs);
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
