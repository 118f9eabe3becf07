import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { StreamState } from '@pels/shared/protocol/signaling';
import type { Logger } from '../log';
import { IvfReader, type IvfFrame } from './ivfReader';
import { resolveMediaFile } from './mediaFiles';
import { operatorSourceText, redactCredentials } from './sourceRedaction';
import { ffmpegArgs, REFERENCE_FD, type EncodeSettings, type SourceSpec } from './sourceSpec';

export type IngestState = StreamState;

export interface IngestStatus {
  state: IngestState;
  /** The last error, for the operator: it may name paths and hosts (URL credentials are masked). */
  error?: string;
  restarts: number;
}

export interface IngestOptions {
  ffmpegPath?: string;
  /** First restart delay; doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run that lasted this long resets the backoff. */
  stableAfterMs?: number;
  /** No frame for this long while running: the state is `stalled` (viewers are told) until a frame comes. */
  stallNoticeMs?: number;
  /** No frame for this long: FFmpeg is stuck, restart it. */
  stallTimeoutMs?: number;
}

type IngestEvents = {
  frame: [IvfFrame];
  status: [IngestStatus];
  /** An FFmpeg run started: the frames (their pts) and reference bytes that follow are its own. */
  run: [];
  /** Bytes of the run's reference output: the scaled source's raw Y planes, for quality measurement. */
  reference: [Buffer];
};

/**
 * Runs FFmpeg on a source and emits its encoded frames as they come. FFmpeg
 * exiting for any reason is reported and the ingest restarts with backoff;
 * a source that cannot be opened is reported as failed (and retried, slower).
 * A running source that sends no frame for a while is reported as stalled at
 * once, and restarted if it stays silent.
 */
export class FfmpegIngest extends EventEmitter<IngestEvents> {
  private proc: ChildProcess | null = null;
  private closed = false;
  private restarts = 0;
  private backoffMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private stallTimer: NodeJS.Timeout | null = null;
  private status: IngestStatus = { state: 'starting', restarts: 0 };
  private readonly opts: Required<IngestOptions>;

  constructor(
    private readonly spec: SourceSpec,
    private readonly encode: EncodeSettings,
    private readonly log: Logger,
    opts: IngestOptions = {},
  ) {
    super();
    this.opts = {
      ffmpegPath: opts.ffmpegPath ?? 'ffmpeg',
      initialBackoffMs: opts.initialBackoffMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 30_000,
      stableAfterMs: opts.stableAfterMs ?? 10_000,
      stallNoticeMs: opts.stallNoticeMs ?? 2000,
      stallTimeoutMs: opts.stallTimeoutMs ?? 10_000,
    };
    this.backoffMs = this.opts.initialBackoffMs;
  }

  get currentStatus(): IngestStatus {
    return this.status;
  }

  start(): void {
    if (this.closed) throw new Error('ingest is closed');
    void this.run();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.proc?.kill('SIGKILL');
    this.proc = null;
    this.setStatus('stopped');
  }

  private setStatus(state: IngestState, error?: string): void {
    this.status = error === undefined ? { state, restarts: this.restarts } : { state, error, restarts: this.restarts };
    this.emit('status', this.status);
  }

  private async run(): Promise<void> {
    let spec = this.spec;
    try {
      // A file may have gone, or been replaced by a link, since it was added: it must still resolve inside the media directories.
      if (spec.kind === 'file') spec = { ...spec, path: await resolveMediaFile(spec.path, spec.mediaDirs) };
    } catch (err) {
      if (this.closed) return;
      const message = (err as Error).message;
      this.log.error({ source: operatorSourceText(this.spec) }, message);
      this.setStatus('failed', message);
      this.scheduleRestart();
      return;
    }
    if (this.closed) return;
    this.setStatus(this.restarts === 0 ? 'starting' : 'restarting', this.status.error);
    const startedAt = Date.now();
    const reader = new IvfReader();
    const stderrTail: string[] = [];
    let gotFrame = false;
    const proc = spawn(this.opts.ffmpegPath, ffmpegArgs(spec, this.encode), { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    this.proc = proc;
    this.log.info({ source: operatorSourceText(spec), pid: proc.pid }, 'ffmpeg started');
    this.armStallTimer(proc);
    this.emit('run');
    // Always read: FFmpeg would block on a full reference pipe, and stop encoding.
    proc.stdio[REFERENCE_FD]!.on('data', (chunk: Buffer) => this.emit('reference', chunk));

    proc.stdout!.on('data', (chunk: Buffer) => {
      let frames: IvfFrame[];
      try {
        frames = reader.push(chunk);
      } catch (err) {
        this.log.error({ err }, 'ffmpeg output is not IVF; restarting');
        proc.kill('SIGKILL');
        return;
      }
      for (const f of frames) {
        if (!gotFrame || this.status.state === 'stalled') {
          gotFrame = true;
          this.setStatus('running');
        }
        this.armStallTimer(proc);
        this.emit('frame', f);
      }
    });
    proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
      for (const line of text.split('\n')) if (line.trim()) stderrTail.push(line.trim());
      stderrTail.splice(0, Math.max(0, stderrTail.length - 5));
    });
    proc.on('error', (err) => {
      // spawn failure (ffmpeg missing); 'close' follows.
      stderrTail.push(err.message);
    });
    proc.on('close', (code, signal) => {
      if (this.proc === proc) this.proc = null;
      if (this.stallTimer) clearTimeout(this.stallTimer);
      if (this.closed) return;
      // FFmpeg quotes the URL it was given: mask its credentials before the message reaches the log or the dashboard.
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      const message = stderrTail.length ? `ffmpeg exited (${how}): ${redactCredentials(stderrTail.join(' | '))}` : `ffmpeg exited (${how})`;
      if (Date.now() - startedAt >= this.opts.stableAfterMs) this.backoffMs = this.opts.initialBackoffMs;
      this.log.warn({ code, signal, ranMs: Date.now() - startedAt }, message);
      this.setStatus(gotFrame ? 'restarting' : 'failed', message);
      this.scheduleRestart();
    });
  }

  /**
   * Re-armed by every frame. One timer in two steps: first the notice (a running
   * source is marked stalled), then the restart. A source still starting is only
   * restarted: it has not sent its first frame yet, so nothing stalled.
   */
  private armStallTimer(proc: ChildProcess): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    const { stallNoticeMs, stallTimeoutMs } = this.opts;
    this.stallTimer = setTimeout(() => {
      if (this.status.state === 'running') {
        this.log.warn({ afterMs: stallNoticeMs }, 'no frame from ffmpeg; stalled');
        this.setStatus('stalled');
      }
      this.stallTimer = setTimeout(() => {
        this.log.warn({ afterMs: stallTimeoutMs }, 'no frame from ffmpeg; restarting it');
        proc.kill('SIGKILL');
      }, Math.max(0, stallTimeoutMs - stallNoticeMs));
    }, stallNoticeMs);
  }

  private scheduleRestart(): void {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.maxBackoffMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closed) return;
      this.restarts++;
      void this.run();
    }, delay);
  }
}
