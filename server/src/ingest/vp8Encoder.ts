/**
 * One run of the stream's VP8 encoder program (encoder/pels-vp8enc.c, built
 * by scripts/setup.sh): raw I420 frames in on its stdin, IVF frames out,
 * keyframe and bitrate requests on a control pipe while it runs.
 *
 * FFmpeg writes the encoder's input directly (the pipe is handed to FFmpeg
 * as one of its outputs), so raw frames never pass through this process.
 * One decode could feed several encoders (renditions) this way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv } from '../process/childEnv';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import { IvfReader, type IvfFrame } from './ivfReader';
import type { EncodeSettings } from './sourceSpec';

/** Where scripts/setup.sh builds it. */
export const ENCODER_PATH = fileURLToPath(new URL('../../../encoder/out/pels-vp8enc', import.meta.url));

/** The encoder's control pipe: stdin, stdout, stderr, then this. */
const CONTROL_FD = 3;

/** Limits of the encoder's --kbps and of a bitrate request. */
export const ENCODER_KBPS_RANGE = { min: 4, max: 100_000 } as const;

/** The encoder's arguments for these settings, without a control channel. */
export function encoderArgs(enc: EncodeSettings): string[] {
  return [
    '--width', String(enc.width), '--height', String(enc.height), '--fps', String(enc.frameRate),
    '--kbps', String(enc.bitrateKbps), '--keyframe-interval', String(enc.keyframeInterval),
  ];
}

export interface EncoderExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Its last lines on stderr, or why it could not start. */
  stderrTail: string[];
}

type Vp8EncoderEvents = {
  frame: [IvfFrame];
  /** The process is gone and its pipes are closed. */
  close: [EncoderExit];
};

const STDERR_LINES = 5;

export class Vp8Encoder extends EventEmitter<Vp8EncoderEvents> {
  private readonly proc: ChildProcess;
  private readonly control: Writable;
  private readonly reader = new IvfReader();
  private readonly stderrTail: string[] = [];

  constructor(enc: EncodeSettings, encoderPath = ENCODER_PATH) {
    super();
    const proc = spawn(encoderPath, [...encoderArgs(enc), '--control-fd', String(CONTROL_FD)], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], env: childEnv() });
    this.proc = proc;
    this.control = proc.stdio[CONTROL_FD] as Writable;
    // A request to an encoder that just died fails with EPIPE: its 'close' reports the death.
    this.control.on('error', () => {});
    proc.stdin!.on('error', () => {});
    proc.stdout!.on('data', (chunk: Buffer) => {
      let frames: IvfFrame[];
      try {
        frames = this.reader.push(chunk);
      } catch (err) {
        this.note(`its output is not IVF: ${(err as Error).message}`);
        this.kill();
        return;
      }
      for (const f of frames) this.emit('frame', f);
    });
    proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n')) if (line.trim()) this.note(line.trim());
    });
    // Spawn failure (not built, not executable); 'close' follows.
    proc.on('error', (err) => this.note(`cannot run ${encoderPath}: ${err.message} (scripts/setup.sh builds it)`));
    proc.on('close', (code, signal) => {
      this.control.destroy();
      this.emit('close', { code, signal, stderrTail: [...this.stderrTail] });
    });
  }

  /** Undefined when it could not be started ('close' follows with the reason). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The encoder's input pipe, to pass to FFmpeg's spawn as the stdio entry it writes raw frames to. */
  get input(): Writable {
    return this.proc.stdin!;
  }

  /**
   * Closes this process's copy of the input pipe once FFmpeg holds its own:
   * the encoder then sees the end of its input when FFmpeg's copy closes.
   */
  releaseInput(): void {
    this.proc.stdin!.destroy();
  }

  /** The next frame it encodes is a keyframe. */
  requestKeyframe(): void {
    this.send('keyframe');
  }

  /** New target bitrate from the next frame on; layers at 1/4, 1/2 and all of it. */
  setBitrate(kbps: number): void {
    const { min, max } = ENCODER_KBPS_RANGE;
    if (!Number.isInteger(kbps) || kbps < min || kbps > max) throw new RangeError(`bitrate must be an integer in [${min}, ${max}] kb/s, got ${kbps}`);
    this.send(`bitrate ${kbps}`);
  }

  kill(): void {
    // One that did not start has no process: node's kill would signal whatever pid its handle holds, measured as 0 (this process's whole group) and garbage.
    if (this.proc.pid !== undefined) this.proc.kill('SIGKILL');
  }

  private send(line: string): void {
    if (!this.control.destroyed) this.control.write(`${line}\n`);
  }

  private note(line: string): void {
    this.stderrTail.push(line);
    this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - STDERR_LINES));
  }
}
