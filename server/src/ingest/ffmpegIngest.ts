import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { childEnv } from '../process/childEnv';
import { EventEmitter } from 'node:events';
import type { StreamState } from '@pels/shared/protocol/signaling';
import type { Publisher } from '../live/publisher';
import type { Logger } from '../log';
import type { IvfFrame } from './ivfReader';
import { probeAudio } from './audioProbe';
import { resolveMediaFile } from './mediaFiles';
import { OggOpusReader, type OpusPacket } from './oggOpusReader';
import { openReferencePipe, type ReferencePipe } from './referencePipe';
import { operatorSourceText, redactCredentials } from './sourceRedaction';
import { audioFd, audioPlan, ffmpegArgs, ffmpegStdin, renditionEncode, soundArgs, type AudioPlan, type EncodeSettings, type LiveSource, type PublishedInput, type Rendition, type SourceSpec } from './sourceSpec';
import { ENCODER_PATH, Vp8Encoder } from './vp8Encoder';

export type IngestState = StreamState;

export interface IngestStatus {
  state: IngestState;
  /** The last error, for the operator: it may name paths and hosts (URL credentials are masked). */
  error?: string;
  restarts: number;
}

export interface IngestOptions {
  ffmpegPath?: string;
  /** Probes a file's or URL's sound before each run. */
  ffprobePath?: string;
  /** The VP8 encoder program (default: where scripts/setup.sh builds it). */
  encoderPath?: string;
  /** First restart delay; doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run that lasted this long resets the backoff. */
  stableAfterMs?: number;
  /** No frame for this long while running: the state is `stalled` (viewers are told) until a frame comes. */
  stallNoticeMs?: number;
  /** No frame for this long: FFmpeg or the encoder is stuck, restart both. */
  stallTimeoutMs?: number;
  /** Lower renditions (1, 2, ...), each encoded by an encoder of its own from the same decode. */
  renditions?: readonly Rendition[];
  /** A live stream whose publisher went away is `reconnecting` this long (the same stream resumes if it comes back), then `waiting`. */
  reconnectMs?: number;
}

/** One run: FFmpeg decoding into the encoders, one per rendition, and the sound's FFmpeg where it has one. */
interface Run {
  /** Null when an encoder did not start (FFmpeg is not started then). */
  ffmpeg: ChildProcess | null;
  /** A file's or lavfi graph's sound (soundArgs); null when the sound rides with the video, or there is none. */
  sound: ChildProcess | null;
  /** The sound's FFmpeg was ended by the run (its end, a stall, a close), not by a fault of its own. */
  soundKilled: boolean;
  /** By rendition: [0] the stream's own encoding. */
  encoders: Vp8Encoder[];
  /** Ended by the ingest (stall, close, drain timeout), not by a fault of its own. */
  encoderKilled: boolean;
  /** A live stream's run reads this publisher's media. */
  publisher: Publisher | null;
}

interface RunEnd {
  message: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** After FFmpeg ends, how long the encoder may take to write the frames it still has. */
const ENCODER_DRAIN_MS = 2000;

function exitMessage(name: string, code: number | null, signal: NodeJS.Signals | null, stderrTail: string[]): RunEnd {
  const how = signal ? `killed by ${signal}` : `exit code ${code}`;
  return { message: stderrTail.length ? `${name} exited (${how}): ${stderrTail.join(' | ')}` : `${name} exited (${how})`, code, signal };
}

export type IngestEvents = {
  /**
   * An encoded frame of rendition `rendition` (0: the stream's own encoding),
   * and when its source frame entered the server (epoch ms): a publisher's, when
   * it arrived; a source the server reads itself, when the encoder gave it. Last,
   * the publisher's own capture time of it, when its publisher stamps one.
   */
  frame: [frame: IvfFrame, rendition: number, enteredMs: number, captureMs?: number];
  status: [IngestStatus];
  /** A run (FFmpeg and the encoder) started: the frames (their pts), reference bytes and audio packets that follow are its own; `audio` says what it does with the sound. */
  run: [AudioPlan];
  /** An Opus packet of the run's sound, its start in the run's 48 kHz timeline (frame pts p starts at p / frameRate s). */
  audio: [OpusPacket];
  /**
   * Right after `run`, when FFmpeg started and this event has a listener: the read
   * end of the run's reference output (the scaled source's raw Y planes, for quality
   * measurement), a pipe the listener owns and must read to its end (FFmpeg waits on
   * a full pipe) and close. Without a listener FFmpeg writes the planes to /dev/null.
   */
  reference: [fd: number];
};

/**
 * Runs a source through FFmpeg (decode, scale) and the VP8 encoder
 * (vp8Encoder.ts), one encoder per rendition, and emits the encoded frames as
 * they come; a file's or lavfi graph's sound comes from an FFmpeg of its own
 * (soundArgs). They run as one: any of them exiting for any reason ends the
 * run (a sound that merely ends leaves it silent), the others are ended too,
 * and the ingest restarts both with backoff; a source that cannot be opened
 * is reported as failed (and retried, slower). A running source that sends no
 * frame for a while is reported as stalled at once, and restarted if it stays
 * silent. Keyframe and bitrate requests go to the running encoder.
 *
 * A live source (`live:`) runs only while a publisher sends: each publisher
 * accepted starts a run that reads its media, and its end ends the run: the
 * stream is `reconnecting` for `reconnectMs`, then `waiting`, until the next
 * publisher comes. A run that fails after its first frame restarts with backoff
 * on the same connection when the publisher can resume its media (WHIP, RTMP,
 * SRT); otherwise the failure ends the publisher too.
 */
export class FfmpegIngest extends EventEmitter<IngestEvents> {
  private current: Run | null = null;
  private closed = false;
  private restarts = 0;
  private backoffMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private stallTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** A live source's current publisher. */
  private publisher: Publisher | null = null;
  private status: IngestStatus = { state: 'starting', restarts: 0 };
  private readonly opts: Required<Omit<IngestOptions, 'renditions'>>;
  private readonly renditions: readonly Rendition[];

  constructor(
    private readonly spec: SourceSpec,
    private encode: EncodeSettings,
    private readonly log: Logger,
    opts: IngestOptions = {},
  ) {
    super();
    this.opts = {
      ffmpegPath: opts.ffmpegPath ?? 'ffmpeg',
      ffprobePath: opts.ffprobePath ?? 'ffprobe',
      encoderPath: opts.encoderPath ?? ENCODER_PATH,
      initialBackoffMs: opts.initialBackoffMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 30_000,
      stableAfterMs: opts.stableAfterMs ?? 10_000,
      stallNoticeMs: opts.stallNoticeMs ?? 2000,
      stallTimeoutMs: opts.stallTimeoutMs ?? 10_000,
      reconnectMs: opts.reconnectMs ?? 30_000,
    };
    this.renditions = opts.renditions ?? [];
    this.backoffMs = this.opts.initialBackoffMs;
  }

  get currentStatus(): IngestStatus {
    return this.status;
  }

  start(): void {
    if (this.closed) throw new Error('ingest is closed');
    if (this.spec.kind === 'live') this.setStatus('waiting');
    else void this.run();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.current) killRun(this.current);
    this.current = null;
    this.publisher?.close('the stream was removed');
    this.publisher = null;
    this.setStatus('stopped');
  }

  /** A live source's publisher now, or null. */
  get currentPublisher(): Publisher | null {
    return this.publisher;
  }

  /**
   * A live source's new publisher: its run starts now. One already publishing
   * is closed first (the caller decided the new one takes over); its run's end
   * starts the new one's.
   */
  attachPublisher(p: Publisher): void {
    if (this.spec.kind !== 'live') throw new Error('only a live stream takes publishers');
    if (this.closed) {
      p.close('the stream was removed');
      return;
    }
    const previous = this.publisher;
    this.publisher = p;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    // The previous publisher's restart, if one was due, is the new one's run.
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    previous?.close('another publisher took over the stream');
    if (this.current) killRun(this.current);
    else void this.run();
  }

  /** Ends a live source's publisher, if it is `p` (or any, without `p`): its run ends with it. */
  detachPublisher(reason: string, p: Publisher | null = this.publisher): void {
    if (!p || p !== this.publisher) return;
    p.close(reason);
    if (this.current?.publisher === p) killRun(this.current);
  }

  /**
   * The encoder's next frame is a keyframe. Between runs there is no encoder
   * to ask: a run starts with a keyframe anyway.
   */
  requestKeyframe(rendition = 0): void {
    this.current?.encoders[rendition]?.requestKeyframe();
  }

  /** A new target bitrate of the stream's own encoding, from the running encoder's next frame and for every later run. */
  setBitrate(kbps: number): void {
    this.current?.encoders[0]?.setBitrate(kbps);
    this.encode = { ...this.encode, bitrateKbps: kbps };
  }

  private setStatus(state: IngestState, error?: string): void {
    this.status = error === undefined ? { state, restarts: this.restarts } : { state, error, restarts: this.restarts };
    this.emit('status', this.status);
  }

  private async run(): Promise<void> {
    if (this.spec.kind === 'live') {
      // A publisher's sound (AAC from OBS or FFmpeg) is decoded and sent as Opus, as a file's would be.
      if (this.publisher) void this.runOnce(this.publisher.input, this.publisher, audioPlan(this.spec, this.publisher.audio));
      return;
    }
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
    const audio = audioPlan(spec, spec.kind === 'lavfi' ? null : await probeAudio(spec, this.opts.ffprobePath));
    if (this.closed) return;
    this.setStatus(this.restarts === 0 ? 'starting' : 'restarting', this.status.error);
    void this.runOnce(spec, null, audio);
  }

  /** One run of FFmpeg and the encoders on `spec`; a live source's with its publisher. */
  private async runOnce(spec: Exclude<SourceSpec, LiveSource> | PublishedInput, publisher: Publisher | null, audio: AudioPlan): Promise<void> {
    const startedAt = Date.now();
    let gotFrame = false;
    const encoders = [this.encode, ...this.renditions.map((r) => renditionEncode(this.encode, r))].map((enc) => new Vp8Encoder(enc, this.opts.encoderPath));
    const [encoder, ...lower] = encoders as [Vp8Encoder, ...Vp8Encoder[]];
    // Started first: FFmpeg writes its raw frames straight into the encoders' inputs (rendition k > 0 on renditionFd(k)).
    const allStarted = encoders.every((e) => e.pid !== undefined);
    const stdin = spec.kind === 'published' ? undefined : ffmpegStdin(spec);
    // The reference planes go to a pipe of their own, read off the main thread (referencePipe.ts); to /dev/null when nobody measures
    // ('ignore' would leave FFmpeg's fd 3 closed, and its writes failing).
    const reference: ReferencePipe | null = allStarted && this.listenerCount('reference') > 0 ? this.openReference() : null;
    const referenceOut = !allStarted ? null : reference ? reference.writeFd : openSync('/dev/null', 'w');
    const stdio = [publisher || stdin !== undefined ? 'pipe' : 'ignore', encoder.input, 'pipe', referenceOut ?? 'ignore', ...lower.map((e) => e.input), ...(audio === 'none' ? [] : ['pipe' as const])] as const;
    let spawned: ChildProcess | null = null;
    try {
      if (allStarted) spawned = spawn(this.opts.ffmpegPath, ffmpegArgs(spec, this.encode, this.renditions, audio), { stdio: [...stdio], env: childEnv() });
    } finally {
      // FFmpeg holds its own copy: the reader sees the end of the pipe when FFmpeg ends.
      if (referenceOut !== null) closeSync(referenceOut);
    }
    const ffmpeg = spawned;
    if (ffmpeg?.stdin && !publisher) {
      ffmpeg.stdin.on('error', () => {}); // FFmpeg gone before it read: its exit is reported below
      ffmpeg.stdin.end(stdin);
    }
    for (const e of encoders) e.releaseInput();
    // An encoder that started while another did not has no input writer: ending it ends the run.
    if (!allStarted) for (const e of encoders) e.kill();
    const ownSound = ffmpeg ? soundArgs(spec, audio) : null;
    const sound = ownSound ? spawn(this.opts.ffmpegPath, ownSound, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() }) : null;
    const run: Run = { ffmpeg, sound, soundKilled: false, encoders, encoderKilled: false, publisher };
    if (publisher && ffmpeg) {
      // FFmpeg reads the publisher's media as it comes, and holds the publisher back when it falls behind.
      ffmpeg.stdin!.on('error', () => undefined);
      publisher.media.pipe(ffmpeg.stdin!);
      // The publisher went: what it sent and FFmpeg has not read yet is late, the run ends now.
      publisher.media.once('close', () => {
        if (this.current === run) killRun(run);
      });
    } else publisher?.close('the ingest could not start');
    this.current = run;
    this.log.info({ source: spec.kind === 'published' ? `${publisher?.protocol} publisher ${publisher?.address}` : operatorSourceText(spec), audio, ffmpegPid: ffmpeg?.pid, soundPid: sound?.pid, encoderPids: encoders.map((e) => e.pid) }, 'ingest started');
    this.armStallTimer(run);
    this.emit('run', audio);
    if (reference) this.emit('reference', reference.readFd);

    // Rendition 0's frames keep the run alive: the others come from the same decode.
    encoders.forEach((e, rendition) =>
      e.on('frame', (f) => {
        if (this.closed) return;
        if (rendition === 0) {
          if (!gotFrame || this.status.state === 'stalled') {
            gotFrame = true;
            this.setStatus('running');
          }
          this.armStallTimer(run);
        }
        const sinceFirstMs = (Number(f.pts) * 1000) / this.encode.frameRate;
        this.emit('frame', f, rendition, publisher?.arrivals.arrival(sinceFirstMs) ?? Date.now(), publisher?.arrivals.capture(sinceFirstMs));
      }),
    );
    const ffmpegStderr: string[] = [];
    if (ffmpeg) {
      if (sound) this.readAudio(sound.stdout!);
      else if (audio !== 'none') this.readAudio(ffmpeg.stdio[audioFd(this.renditions.length)]! as NodeJS.ReadableStream);
      keepTail(ffmpeg, ffmpegStderr);
    }
    const soundStderr: string[] = [];
    // The sound's FFmpeg ending on its own ends the run, as FFmpeg's does; a sound that merely ended (a graph with a duration) leaves the run silent.
    const soundEnd = sound
      ? new Promise<RunEnd & { ownFault: boolean }>((resolve) => {
          keepTail(sound, soundStderr);
          sound.on('close', (code, signal) => {
            const ownFault = code !== 0 && !run.soundKilled;
            if (ownFault) killRun(run);
            resolve({ ...exitMessage('ffmpeg (sound)', code, signal, soundStderr.map(redactCredentials)), ownFault });
          });
        })
      : null;
    // The run ends when either process ends, and the other one follows.
    const ffmpegEnd = ffmpeg
      ? new Promise<RunEnd>((resolve) =>
          ffmpeg.on('close', (code, signal) => {
            killSound(run);
            // The encoder sees the end of its input and writes the frames it still has; one that does not, is ended.
            setTimeout(() => killEncoders(run), ENCODER_DRAIN_MS).unref();
            // FFmpeg quotes the URL it was given: mask its credentials before the message reaches the log or the dashboard.
            resolve(exitMessage('ffmpeg', code, signal, ffmpegStderr.map(redactCredentials)));
          }),
        )
      : null;
    const encoderEnds = encoders.map(
      (e, rendition) =>
        new Promise<RunEnd & { ownFault: boolean; notStarted: boolean }>((resolve) =>
          e.on('close', ({ code, signal, stderrTail }) => {
            // An encoder that ends cleanly or by our hand ended because FFmpeg (or another encoder) did.
            const ownFault = code !== 0 && !run.encoderKilled;
            ffmpeg?.kill('SIGKILL');
            // One encoder failing ends the run: the others follow (after a clean end they are draining their own frames).
            if (code !== 0) killEncoders(run);
            const name = rendition === 0 ? 'vp8 encoder' : `vp8 encoder of rendition ${rendition}`;
            const end =
              e.pid === undefined
                ? { message: `${name} did not start: ${stderrTail.join(' | ')}`, code, signal }
                : exitMessage(name, code, signal, stderrTail);
            resolve({ ...end, ownFault, notStarted: e.pid === undefined });
          }),
        ),
    );
    const [soundExit, ffmpegExit, ...encoderExits] = await Promise.all([soundEnd, ffmpegEnd, ...encoderEnds]);
    const encoderExit = encoderExits.find((x) => x.notStarted) ?? encoderExits.find((x) => x.ownFault) ?? encoderExits[0]!;
    if (this.current === run) this.current = null;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.closed) return;
    // FFmpeg fails when the encoder does (a broken pipe), never the other way round: an encoder's own failure is the cause,
    // then the sound's FFmpeg's (which the run's end followed).
    const { message, code, signal } = encoderExit.ownFault ? encoderExit : soundExit?.ownFault ? soundExit : (ffmpegExit ?? encoderExit);
    if (publisher) {
      // An encoder's own fault ended the others by our hand (encoderKilled): still a failure of the run.
      const failed = encoderExit.ownFault || (code !== 0 && !run.encoderKilled);
      this.endPublishedRun(publisher, gotFrame, failed ? message : undefined, Date.now() - startedAt);
      return;
    }
    if (Date.now() - startedAt >= this.opts.stableAfterMs) this.backoffMs = this.opts.initialBackoffMs;
    this.log.warn({ code, signal, ranMs: Date.now() - startedAt }, message);
    this.setStatus(gotFrame ? 'restarting' : 'failed', message);
    this.scheduleRestart();
  }

  /** A run's reference pipe; null when it cannot be made (the run goes on, its planes to /dev/null, unmeasured). */
  private openReference(): ReferencePipe | null {
    try {
      return openReferencePipe();
    } catch (err) {
      this.log.warn({ err }, 'no reference pipe: this run\'s quality is not measured');
      return null;
    }
  }

  /** The run's Ogg Opus output, packet by packet; always read, as the reference. Bytes that are not Ogg end the sound of the run, not the run. */
  private readAudio(pipe: NodeJS.ReadableStream): void {
    const reader = new OggOpusReader();
    let broken = false;
    pipe.on('data', (chunk: Buffer) => {
      if (broken || this.closed) return;
      try {
        for (const p of reader.push(chunk)) this.emit('audio', p);
      } catch (err) {
        broken = true;
        this.log.warn({ err }, 'audio output unreadable; the run goes on without sound');
      }
    });
  }

  /**
   * A publisher's run ended: its publisher went, was taken over, or the run
   * failed (`error`). A run that failed after frames came restarts, with
   * backoff, on the same connection when the publisher can resume its media;
   * one that failed before (what it sends cannot be read) ends the publisher.
   * A new publisher's run starts at once; otherwise the stream waits for its
   * publisher to come back.
   */
  private endPublishedRun(publisher: Publisher, gotFrame: boolean, error: string | undefined, ranMs: number): void {
    if (error !== undefined && gotFrame && this.publisher === publisher && publisher.resumeMedia) {
      // Its media was read, then FFmpeg or an encoder failed: a new run on the same connection, as a pulled source's restart.
      if (ranMs >= this.opts.stableAfterMs) this.backoffMs = this.opts.initialBackoffMs;
      this.log.warn({ publisher: publisher.address, protocol: publisher.protocol, error, ranMs }, 'publisher run failed; restarting the ingest on the same connection');
      this.setStatus('restarting', error);
      publisher.resumeMedia();
      const media = publisher.media;
      // The publisher going while the run waits to restart ends it as a publisher going mid-run does.
      media.once('close', () => {
        if (this.closed || this.current || publisher.media !== media || this.publisher !== publisher) return;
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = null;
        this.endPublishedRun(publisher, true, undefined, ranMs);
      });
      this.scheduleRestart();
      return;
    }
    if (this.publisher === publisher) {
      publisher.close(error === undefined ? 'the publisher\'s media ended' : 'its media could not be read');
      this.publisher = null;
    }
    this.log.info({ publisher: publisher.address, protocol: publisher.protocol, ...(error ? { error } : {}) }, 'publisher run ended');
    if (this.publisher) {
      void this.run();
      return;
    }
    const wasLive = gotFrame || this.status.state === 'reconnecting';
    if (!wasLive) {
      this.setStatus('waiting', error);
      return;
    }
    this.setStatus('reconnecting', error);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed && !this.publisher) this.setStatus('waiting', this.status.error);
    }, this.opts.reconnectMs);
  }

  /**
   * Re-armed by every frame. One timer in two steps: first the notice (a running
   * source is marked stalled), then the restart. A source still starting is only
   * restarted: it has not sent its first frame yet, so nothing stalled.
   */
  private armStallTimer(run: Run): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    const { stallNoticeMs, stallTimeoutMs } = this.opts;
    this.stallTimer = setTimeout(() => {
      if (this.status.state === 'running') {
        this.log.warn({ afterMs: stallNoticeMs }, 'no frame from the encoder; stalled');
        this.setStatus('stalled');
      }
      this.stallTimer = setTimeout(() => {
        this.log.warn({ afterMs: stallTimeoutMs }, 'no frame from the encoder; restarting FFmpeg and the encoder');
        killRun(run);
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

/** SIGKILL ends a stopped process too. */
function killRun(run: Run): void {
  run.ffmpeg?.kill('SIGKILL');
  killSound(run);
  killEncoders(run);
}

function killSound(run: Run): void {
  if (!run.sound || run.sound.exitCode !== null || run.sound.signalCode !== null) return;
  run.soundKilled = true;
  run.sound.kill('SIGKILL');
}

/** An FFmpeg's last 5 lines on stderr, and why it could not start ('close' follows a spawn failure). */
function keepTail(proc: ChildProcess, tail: string[]): void {
  proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
    for (const line of text.split('\n')) if (line.trim()) tail.push(line.trim());
    tail.splice(0, Math.max(0, tail.length - 5));
  });
  proc.on('error', (err) => tail.push(err.message));
}

function killEncoders(run: Run): void {
  run.encoderKilled = true;
  for (const e of run.encoders) e.kill();
}
