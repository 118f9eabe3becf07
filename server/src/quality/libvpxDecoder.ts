import { spawn, type ChildProcess } from 'node:child_process';
import { lowerProcess } from '../process/measurementPriority';
import { childEnv } from '../process/childEnv';
import type { TemporalId } from './psnrTable';
import { ivfFileHeader, ivfFrame } from './ivfWriter';
import { PlaneSplitter } from './planeSplitter';

export interface DecodedPlane {
  index: number;
  tid: TemporalId;
  plane: Uint8Array;
}

export interface LibvpxDecoderOptions {
  width: number;
  height: number;
  frameRate: number;
  ffmpegPath: string;
  onPlane(decoded: DecodedPlane): void;
  /** The decoder is gone (error, exit, or fell behind); told once, not after close(). */
  onFailure(reason: string): void;
}

/** Encoded bytes the decoder may fall behind by (about 8 s of a 1 Mb/s stream) before it counts as stuck. */
const MAX_BACKLOG_BYTES = 1 << 20;

/**
 * FFmpeg's libvpx decoder on pipes: the server's own decode of the stream it sends,
 * which is the player's decode bit for bit (docs/architecture.md). VP8 frames go in as IVF on
 * stdin, starting with a keyframe; each frame's Y plane comes out on stdout, in order.
 *
 * Arguments, measured here: a tiny probe makes the first frame come out at once
 * (the default probe held output back about 2 s) and each later one within about
 * 1 ms; `-fflags nobuffer` must not be used, it discards the probed packets and with
 * them the first keyframe; `extractplanes=y` is the exact Y plane, where
 * `-pix_fmt gray` rescales the luma range.
 */
export class LibvpxDecoder {
  private readonly proc: ChildProcess;
  private readonly splitter: PlaneSplitter;
  /** Frames written and not yet decoded, in order: FFmpeg outputs one plane per frame. */
  private readonly inFlight: { index: number; tid: TemporalId }[] = [];
  private framesWritten = 0;
  private done = false;
  /** Settles once the process has exited (and node has reaped it) or never started. */
  private readonly exited: Promise<void>;

  constructor(private readonly opts: LibvpxDecoderOptions) {
    this.splitter = new PlaneSplitter(opts.width * opts.height);
    this.proc = spawn(opts.ffmpegPath, decoderArgs(), { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.once('error', () => resolve());
    });
    // A measurement, off the stream's path: it yields the CPU to the ingest and the viewers.
    lowerProcess(this.proc.pid);
    this.proc.stdin!.on('error', (err) => this.fail(`decoder input: ${err.message}`));
    this.proc.stdin!.write(ivfFileHeader(opts.width, opts.height, opts.frameRate));
    this.proc.stdout!.on('data', (chunk: Buffer) => {
      for (const plane of this.splitter.push(chunk)) {
        const frame = this.inFlight.shift();
        if (!frame) return this.fail('decoder output a frame it was not given');
        this.opts.onPlane({ ...frame, plane });
      }
    });
    // Errors only (-loglevel error): a frame that failed to decode would shift every later plane.
    this.proc.stderr!.setEncoding('utf8').on('data', (text: string) => this.fail(`decoder: ${text.trim().split('\n')[0]}`));
    this.proc.on('error', (err) => this.fail(`decoder: ${err.message}`));
    this.proc.on('close', (code, signal) => this.fail(`decoder exited (${code ?? signal})`));
  }

  /** Queues a frame; the first must be a keyframe. */
  decode(index: number, tid: TemporalId, data: Uint8Array): void {
    if (this.done) return;
    const stdin = this.proc.stdin!;
    if (stdin.writableLength > MAX_BACKLOG_BYTES) return this.fail('decoder fell behind');
    this.inFlight.push({ index, tid });
    // Our own pts, counting frames: the ingest's restart at 0 with every FFmpeg run.
    stdin.write(ivfFrame(this.framesWritten++, data));
  }

  /**
   * Kills the decoder; settles once it has exited. The thread that spawned it must live until then: a process
   * whose thread ended first is never reaped (a zombie, or a decoder left running).
   */
  close(): Promise<void> {
    if (!this.done) {
      this.done = true;
      this.proc.kill('SIGKILL');
    }
    return this.exited;
  }

  private fail(reason: string): void {
    if (this.done) return;
    void this.close();
    this.opts.onFailure(reason);
  }
}

function decoderArgs(): string[] {
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    '-probesize', '32', '-analyzeduration', '0',
    '-f', 'ivf', '-c:v', 'libvpx', '-i', 'pipe:0',
    '-threads', '1',
    '-vf', 'extractplanes=y', '-fps_mode', 'passthrough',
    '-f', 'rawvideo', '-flush_packets', '1', 'pipe:1',
  ];
}
