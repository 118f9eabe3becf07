/**
 * One WHIP publisher on the media worker: a router of its own (H.264 and
 * Opus), a WebRtcTransport on the worker's WebRtcServer port built from the
 * offer, and a producer per taken section, each consumed on a DirectTransport.
 * The video's RTP becomes H.264 access units (h264Frames.ts), and with the
 * Opus packets as they came they go, timed from their RTP timestamps, in a
 * live Matroska stream (matroskaWriter.ts) to the stream's FFmpeg ingest as
 * the publisher's media: the video is decoded and encoded to the stream's
 * layered VP8, the Opus passes through. The stream starts at the first
 * keyframe; the publisher is asked for one when the decoder starts and
 * whenever a frame was lost. An ingest behind past the bound (as RTMP's and
 * SRT's, StaleMediaSkip) has the media dropped up to a keyframe, asked for at
 * once, and the gap closed in the Matroska times. Closing the session closes its router, and with
 * it every transport, producer and consumer it made.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { types as ms } from 'mediasoup';
import type { Logger } from '../../log';
import { SERVER_TRANSPORT } from '../../metrics/mediasoupWorkers';
import { parseRtpPacket, rtpHeaderExtension } from '../../rtp/rtpPacket';
import { Unwrapper } from '../../rtp/unwrap';
import { MediaArrivals } from '../mediaArrivals';
import { MediaBacklog } from '../mediaBacklog';
import { INGEST_MAX_BEHIND_MS, StaleMediaSkip } from '../staleMediaSkip';
import type { Publisher } from '../publisher';
import { CaptureClock } from './captureClock';
import { H264FrameAssembler, type H264Frame } from './h264Frames';
import { AUDIO_TRACK, MatroskaWriter, VIDEO_TRACK } from './matroskaWriter';
import { RtpClock } from './rtpClock';
import { ABS_CAPTURE_TIME, answerSdp, type PublishPlan } from './whipOffer';

/** Time between the assembler's flushes and keyframe requests' checks. */
const TICK_MS = 50;
/** Keyframe requests while the decoder waits for one, at most one per this. */
const KEYFRAME_REQUEST_GAP_MS = 500;
/** The session's times (ms from its start) wrap here, for the bound: never, in practice. */
const SESSION_WRAP_MS = 2 ** 40;

export interface WhipSessionOptions {
  router: ms.Router;
  webRtcServer: ms.WebRtcServer;
  address: string;
  /** The publisher must connect (ICE and DTLS) this soon after the answer. */
  connectTimeoutMs: number;
  /** Seconds without ICE consent after which the publisher is gone. */
  iceConsentTimeoutS: number;
  log: Logger;
  /** Called once, with the session's id, when it ends. */
  onClose: (id: string) => void;
}

export class WhipSession {
  /** The session's resource: /whip/<stream>/<id>. */
  readonly id = randomBytes(16).toString('base64url');
  readonly publisher: Publisher & { media: PassThrough };
  private media = newMedia();
  private readonly assembler = new H264FrameAssembler();
  private mkv: MatroskaWriter;
  /** The stream has begun (its header and first keyframe written): sound goes out from then. */
  private started = false;
  private readonly t0 = Date.now();
  private readonly videoClock = new RtpClock(90000);
  /** The publisher's capture times, when it sends abs-capture-time. */
  private readonly captureClock = new CaptureClock(90000);
  private readonly audioClock = new RtpClock(48000);
  private readonly audioSeq = new Unwrapper(16);
  private lastAudioSeq = -Infinity;
  private transport: ms.WebRtcTransport | null = null;
  private consumer: ms.Consumer | null = null;
  private readonly timer: NodeJS.Timeout;
  private lastKeyframeRequest = -Infinity;
  /** A new ingest run's stream waits for a keyframe. */
  private awaitingKeyframe = false;
  /** What is written to the ingest, and when, once it is behind. */
  private skip = new StaleMediaSkip(INGEST_MAX_BEHIND_MS, SESSION_WRAP_MS);
  private backlog = new MediaBacklog(SESSION_WRAP_MS);
  private closed = false;
  /** Frames handed to the ingest. */
  framesOut = 0;

  private constructor(
    private readonly o: WhipSessionOptions,
    private readonly withAudio: boolean,
  ) {
    this.mkv = new MatroskaWriter(withAudio);
    this.publisher = {
      protocol: 'whip',
      address: o.address,
      input: { kind: 'published', format: 'matroska' },
      audio: withAudio ? { codec: 'opus', channels: 2 } : null,
      // Its frames' entry times: when each arrived whole, matched by its time in the Matroska stream.
      arrivals: new MediaArrivals(),
      media: this.media,
      since: Date.now(),
      close: (reason) => this.close(reason),
      resumeMedia: () => this.resumeMedia(),
    };
    this.timer = setInterval(() => this.tick(), TICK_MS);
    o.router.observer.once('close', () => this.close('the media worker closed'));
  }

  /** Builds the session from `plan`; returns it with the SDP answer. On failure, nothing is left open. */
  static async open(plan: PublishPlan, o: WhipSessionOptions): Promise<{ session: WhipSession; answer: string }> {
    const s = new WhipSession(o, plan.sections.some((x) => 'taken' in x && x.taken.kind === 'audio'));
    try {
      const answer = await s.build(plan);
      return { session: s, answer };
    } catch (err) {
      s.close('the offer could not be set up');
      throw err;
    }
  }

  private async build(plan: PublishPlan): Promise<string> {
    const { router } = this.o;
    const transport = await router.createWebRtcTransport({
      webRtcServer: this.o.webRtcServer,
      enableUdp: true,
      enableTcp: true,
      preferUdp: true,
      iceConsentTimeout: this.o.iceConsentTimeoutS,
      appData: SERVER_TRANSPORT,
    });
    this.transport = transport;
    const connectTimer = setTimeout(() => this.close(`the publisher did not connect within ${this.o.connectTimeoutMs} ms`), this.o.connectTimeoutMs);
    transport.on('dtlsstatechange', (state) => {
      if (state === 'connected') clearTimeout(connectTimer);
      if (state === 'failed' || state === 'closed') this.close(`DTLS ${state}`);
    });
    transport.on('icestatechange', (state) => {
      if (state === 'disconnected' || state === 'closed') this.close(`ICE ${state}`);
    });
    transport.observer.once('close', () => clearTimeout(connectTimer));
    await transport.connect({ dtlsParameters: plan.remoteDtls });
    for (const s of plan.sections) {
      if (!('taken' in s)) continue;
      const producer = await transport.produce({ kind: s.taken.kind, rtpParameters: s.taken.rtpParameters });
      await this.consume(producer);
    }
    const fingerprint = transport.dtlsParameters.fingerprints.find((f) => f.algorithm === 'sha-256') ?? transport.dtlsParameters.fingerprints[0]!;
    return answerSdp(plan, { ice: transport.iceParameters, candidates: transport.iceCandidates, fingerprint, setup: plan.remoteDtls.role === 'client' ? 'passive' : 'active' }, String(Date.now()));
  }

  private async consume(producer: ms.Producer): Promise<void> {
    const direct = await this.o.router.createDirectTransport({ appData: SERVER_TRANSPORT });
    const consumer = await direct.consume({ producerId: producer.id, rtpCapabilities: this.o.router.rtpCapabilities });
    if (producer.kind === 'audio') {
      consumer.on('rtp', (packet) => this.onAudio(packet));
      return;
    }
    this.consumer = consumer;
    const captureId = consumer.rtpParameters.headerExtensions?.find((e) => e.uri === ABS_CAPTURE_TIME)?.id;
    consumer.on('rtp', (packet) => {
      const p = parseRtpPacket(packet);
      if (!p) return;
      if (captureId !== undefined) this.captureClock.note(p.timestamp, rtpHeaderExtension(packet, captureId));
      this.deliver(this.assembler.push(p, Date.now()));
    });
    this.requestKeyframe();
  }

  /** An Opus packet: passed on as it came, once the stream has begun; one older than the last is dropped (times only go forward). */
  private onAudio(packet: Buffer): void {
    const p = parseRtpPacket(packet);
    if (!p || !p.payload.length) return;
    const ms = this.audioClock.ms(p.timestamp, Date.now() - this.t0);
    const seq = this.audioSeq.extend(p.sequenceNumber);
    if (!this.started || this.closed || seq <= this.lastAudioSeq) return;
    this.lastAudioSeq = seq;
    const out = this.bounded('audio', ms);
    if (out !== null) this.write(this.mkv.block(AUDIO_TRACK, out, true, p.payload), out);
  }

  /** The time to write media of `kind` at `ms` with, or null: dropped (StaleMediaSkip). */
  private bounded(kind: 'keyframe' | 'frame' | 'audio', ms: number): number | null {
    const wasSkipping = this.skip.isSkipping;
    const out = this.skip.next(kind, ms, this.backlog.behindMs(this.media.writableLength + this.media.readableLength));
    if (this.skip.isSkipping !== wasSkipping) {
      const { skips, dropped, shiftMs } = this.skip;
      if (this.skip.isSkipping) {
        this.o.log.warn({ session: this.id, skips }, 'the ingest is behind the WHIP publisher: dropping media up to the next keyframe');
        this.requestKeyframe();
      } else this.o.log.info({ session: this.id, dropped, droppedMs: Math.round(shiftMs) }, 'the ingest caught up; the stream goes on from the keyframe, its times closed over the span dropped');
    }
    return out;
  }

  private write(bytes: Buffer, ms: number): void {
    this.media.write(bytes);
    this.backlog.wrote(bytes.length, ms);
  }

  private tick(): void {
    this.deliver(this.assembler.flush(Date.now()));
    if (this.assembler.needsKeyframe || this.awaitingKeyframe || this.skip.isSkipping) this.requestKeyframe();
  }

  private deliver(frames: H264Frame[]): void {
    for (const f of frames) {
      if (this.closed) return;
      const ms = this.videoClock.ms(f.timestamp, Date.now() - this.t0);
      if (this.awaitingKeyframe && !f.keyframe) continue;
      this.awaitingKeyframe = false;
      const out = this.bounded(f.keyframe ? 'keyframe' : 'frame', ms);
      if (out === null) continue;
      if (!this.started) {
        this.o.log.info({ session: this.id, afterAnswerMs: Date.now() - this.publisher.since }, 'WHIP first keyframe: the stream begins');
        this.write(this.mkv.header(), out);
      }
      this.started = true;
      this.write(this.mkv.block(VIDEO_TRACK, out, f.keyframe, f.data), out);
      this.publisher.arrivals.note(ms, Date.now(), this.skip.shiftMs, this.captureClock.captureMs(f.timestamp));
      this.framesOut++;
    }
  }

  /**
   * The ingest's run failed and a new one starts (Publisher.resumeMedia): a new Matroska stream, its
   * header and blocks from the next keyframe on, which is asked for now. What the failed run had not
   * read is dropped with its stream.
   */
  private resumeMedia(): void {
    if (this.closed) return;
    this.media.destroy();
    this.media = newMedia();
    this.mkv = new MatroskaWriter(this.withAudio);
    this.publisher.media = this.media;
    this.publisher.arrivals = new MediaArrivals();
    this.skip = new StaleMediaSkip(INGEST_MAX_BEHIND_MS, SESSION_WRAP_MS);
    this.backlog = new MediaBacklog(SESSION_WRAP_MS);
    this.started = false;
    this.awaitingKeyframe = true;
    this.lastKeyframeRequest = -Infinity;
    this.requestKeyframe();
    this.o.log.info({ session: this.id }, 'WHIP media resumed for a new ingest run: from the next keyframe');
  }

  private requestKeyframe(): void {
    const now = Date.now();
    if (!this.consumer || this.consumer.closed || now - this.lastKeyframeRequest < KEYFRAME_REQUEST_GAP_MS) return;
    this.lastKeyframeRequest = now;
    this.consumer.requestKeyFrame().catch(() => undefined);
  }

  /** Ends the publish: the router goes with everything on it, and the ingest sees the media end. A second call does nothing. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    if (!this.o.router.closed) this.o.router.close();
    this.media.destroy();
    this.o.log.info({ session: this.id, address: this.o.address, reason, framesOut: this.framesOut, framesDropped: this.assembler.dropped }, 'WHIP session closed');
    this.o.onClose(this.id);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** The publisher's media as the ingest reads it; an error is the ingest's (its run ends), not the session's. */
function newMedia(): PassThrough {
  const media = new PassThrough();
  media.on('error', () => undefined);
  return media;
}
