/**
 * The SRT listener (SRT=on): pels-srt (srt/, Go with datarhei/gosrt) takes the
 * SRT callers on a UDP port and hands each to this server over a Unix socket
 * in a private directory: its `streamid` (the stream key) and address first,
 * answered here by the publish gate, so a wrong key is refused in the SRT
 * handshake; then the caller's MPEG-TS. It is held until its program map says
 * whether sound comes with the video, then goes to the stream's ingest as a
 * publisher's media, within the ingest's bound (TsMediaSkip: behind, dropped
 * up to a keyframe; the caller is never paused). The listener process ends with the server (its stdin
 * closes) and is started again if it dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../log';
import { childEnv } from '../../process/childEnv';
import { PublishRefused, type RefusalReason } from '../publishGate';
import type { Publisher, PublishTarget } from '../publisher';
import { MediaArrivals, PTS_WRAP_MS } from '../mediaArrivals';
import { keyOfStreamId, StreamIdError } from './srtStreamId';
import { INGEST_MAX_BEHIND_MS } from '../staleMediaSkip';
import { findProgram, TsFromKeyframe } from './tsProgram';
import { TsMediaSkip } from './tsMediaSkip';

/** Where scripts/setup.sh builds it. */
export const SRT_LISTENER_PATH = fileURLToPath(new URL('../../../../srt/out/pels-srt', import.meta.url));

/** The hand-off's first line (streamid and address), at most. */
const MAX_HELLO_BYTES = 4096;
/** What is held before the program map, and what the ingest may hold (as RTMP's). */
const MEDIA_BUFFER_BYTES = 512 * 1024;
const RESTART_MS = 1000;

/** SRT's access-control rejection codes (REJX_*) for each refusal: what the caller's SRT library reports. */
const REJECTION: Record<RefusalReason, number> = { bad_key: 1401, locked_out: 1402, rate_limited: 1402, busy: 1409, malformed: 1400 };
/** REJX_BAD_MODE: a caller that asked to play. */
const REJECT_BAD_MODE = 1405;

export interface SrtServerOptions {
  port: number;
  host: string;
  /** Callers at once, accepted or being answered; past it the listener refuses in the handshake. */
  maxConnections: number;
  /** From the caller's connection to its program map, at most. */
  publishTimeoutMs: number;
  /** SRT receive latency, ms (the caller's, if larger, wins). */
  latencyMs: number;
  /** The live stream a key publishes to; throws PublishRefused. */
  admit: (address: string, key: string) => PublishTarget;
  /** A caller whose streamid or hand-off made no sense. */
  onMalformed: () => void;
  listenerPath?: string;
  log: Logger;
}

export class SrtServer {
  private proc: ChildProcess | null = null;
  private closed = false;
  private boundPort = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly o: SrtServerOptions,
    private readonly dir: string,
    private readonly handoff: Server,
  ) {}

  static async start(o: SrtServerOptions): Promise<SrtServer> {
    // Only this server's user may reach the hand-off: a caller's address and key come through it.
    const dir = mkdtempSync(join(tmpdir(), 'pels-srt-'));
    const handoff = createServer();
    const self = new SrtServer(o, dir, handoff);
    handoff.on('connection', (socket) => self.onHandoff(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        handoff.once('error', reject);
        handoff.listen(join(dir, 'handoff.sock'), () => resolve());
      });
      self.boundPort = await self.spawnListener();
    } catch (err) {
      self.close();
      throw err;
    }
    return self;
  }

  /** The UDP port callers reach. */
  get port(): number {
    return this.boundPort;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.proc?.stdin?.end();
    this.proc?.kill();
    this.handoff.close();
    for (const s of this.sockets) s.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Starts pels-srt; resolves with its UDP port once it listens. */
  private spawnListener(): Promise<number> {
    const o = this.o;
    const args = ['--listen', `${o.host}:${o.port}`, '--handoff', join(this.dir, 'handoff.sock'), '--latency-ms', String(o.latencyMs), '--max-connections', String(o.maxConnections)];
    const proc = spawn(o.listenerPath ?? SRT_LISTENER_PATH, args, { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
    this.proc = proc;
    proc.stdin!.on('error', () => undefined);
    let stderr = '';
    proc.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-2000)));
    return new Promise<number>((resolve, reject) => {
      let listening = false;
      proc.stdout!.setEncoding('utf8').on('data', (t: string) => {
        const m = /^listening .*:(\d+)$/m.exec(t);
        if (m && !listening) {
          listening = true;
          resolve(Number(m[1]));
        }
      });
      proc.on('error', (err) => stderr += err.message);
      proc.on('close', (code, signal) => {
        if (!listening) return reject(new Error(`the SRT listener did not start (${code ?? signal}): ${stderr.trim() || 'no message'}`));
        if (this.closed) return;
        o.log.error({ code, signal, stderr: stderr.trim() }, 'the SRT listener ended; starting it again');
        setTimeout(() => {
          if (!this.closed) this.spawnListener().then((port) => (this.boundPort = port), (err: unknown) => o.log.error({ err }, 'the SRT listener did not start again'));
        }, RESTART_MS).unref();
      });
    });
  }

  /** One caller, from pels-srt: its hello, the gate's answer, then its media. */
  private onHandoff(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const o = this.o;
    let hello = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), o.publishTimeoutMs);
    const onHello = (chunk: Buffer) => {
      hello = Buffer.concat([hello, chunk]);
      const nl = hello.indexOf(0x0a);
      if (nl < 0) {
        if (hello.length > MAX_HELLO_BYTES) socket.destroy();
        return;
      }
      socket.off('data', onHello);
      const rest = hello.subarray(nl + 1);
      let caller: { streamid: string; address: string };
      try {
        caller = JSON.parse(hello.subarray(0, nl).toString('utf8')) as { streamid: string; address: string };
        if (typeof caller.streamid !== 'string' || typeof caller.address !== 'string') throw new Error('no streamid or address');
      } catch {
        clearTimeout(timer);
        socket.destroy();
        return;
      }
      const target = this.answer(socket, caller);
      if (target) this.holdUntilProgram(socket, target, caller.address, rest, timer);
      else {
        clearTimeout(timer);
        socket.end();
      }
    };
    socket.on('data', onHello);
  }

  /** The gate's answer to the caller, written to pels-srt; the stream it publishes to, or null: refused. */
  private answer(socket: Socket, caller: { streamid: string; address: string }): PublishTarget | null {
    const refuse = (code: number, reason: string) => {
      this.o.log.info({ address: caller.address, reason }, 'SRT publisher refused');
      socket.write(`${JSON.stringify({ accept: false, code, reason })}\n`);
      return null;
    };
    let target: PublishTarget;
    try {
      target = this.o.admit(caller.address, keyOfStreamId(caller.streamid));
    } catch (err) {
      if (err instanceof StreamIdError) {
        this.o.onMalformed();
        return refuse(/publishers only/.test(err.message) ? REJECT_BAD_MODE : REJECTION.malformed, err.message);
      }
      if (err instanceof PublishRefused) return refuse(REJECTION[err.reason], err.message);
      throw err;
    }
    socket.write(`${JSON.stringify({ accept: true })}\n`);
    this.o.log.info({ stream: target.id, address: caller.address }, 'SRT publisher accepted');
    return target;
  }

  /** The caller's MPEG-TS, held until its program map is in, then its stream's publisher. */
  private holdUntilProgram(socket: Socket, target: PublishTarget, address: string, first: Buffer, timer: NodeJS.Timeout): void {
    let held = first;
    const onData = (chunk: Buffer) => {
      held = held.length ? Buffer.concat([held, chunk]) : chunk;
      const program = findProgram(held);
      if (!program) {
        if (held.length > MEDIA_BUFFER_BYTES) {
          this.o.log.warn({ address }, `SRT publisher sent no MPEG-TS program map in its first ${MEDIA_BUFFER_BYTES} bytes`);
          socket.destroy();
        }
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      const videoPid = program.videoPid;
      if (videoPid === null) {
        this.o.log.warn({ address }, 'SRT publisher sent no video stream (its program map lists none)');
        socket.destroy();
        return;
      }
      const hevc = program.video === 'hevc';
      const newMedia = () => new PassThrough({ highWaterMark: MEDIA_BUFFER_BYTES });
      // Each video frame kept, by its PTS: when the frames the ingest makes of it entered the server.
      const newSkip = () => new TsMediaSkip(videoPid, hevc, INGEST_MAX_BEHIND_MS, (ms, shiftMs) => publisher.arrivals.note(ms, Date.now(), shiftMs));
      let media = newMedia();
      // The caller's first bytes (up to its program map, a few packets) hold its tables, which it may not send again.
      const tables = held;
      let bound = newSkip();
      /** After a failed ingest run: the caller's stream again from its next keyframe. */
      let gate: TsFromKeyframe | null = null;
      const feed = (chunk: Buffer) => {
        const gated = gate ? gate.push(chunk) : chunk;
        if (!gated.length) return;
        const { isSkipping, skips } = bound.skip;
        const bytes = bound.push(gated, media.writableLength + media.readableLength);
        if (bound.skip.isSkipping !== isSkipping || bound.skip.skips !== skips) this.logSkip(address, bound);
        if (bytes.length) media.write(bytes);
      };
      const publisher: Publisher = {
        protocol: 'srt',
        address,
        input: { kind: 'published', format: 'mpegts' },
        audio: program.audio,
        arrivals: new MediaArrivals(PTS_WRAP_MS),
        media,
        since: Date.now(),
        close: (reason) => {
          if (socket.destroyed) return;
          this.o.log.info({ address, reason }, 'SRT publisher ended');
          socket.destroy();
        },
        resumeMedia: () => {
          if (socket.destroyed) return;
          media.destroy();
          publisher.media = media = newMedia();
          publisher.arrivals = new MediaArrivals(PTS_WRAP_MS);
          bound = newSkip();
          gate = new TsFromKeyframe(videoPid, hevc, tables);
          this.o.log.info({ address }, 'SRT media resumed for a new ingest run: from the next keyframe');
        },
      };
      feed(held);
      socket.on('data', feed);
      // What the ingest has not read yet is late once the caller is gone: its run ends now.
      socket.on('close', () => media.destroy());
      target.attachPublisher(publisher);
    };
    socket.on('data', onData);
    if (first.length) onData(Buffer.alloc(0));
  }

  private logSkip(address: string, bound: TsMediaSkip): void {
    const { skips, dropped, shiftMs, isSkipping } = bound.skip;
    if (isSkipping) this.o.log.warn({ address, skips }, 'the ingest is behind the SRT publisher: dropping media up to the next keyframe');
    else this.o.log.info({ address, dropped, droppedMs: Math.round(shiftMs) }, 'the ingest caught up; the stream goes on from the keyframe, its timestamps closed over the span dropped');
  }
}
