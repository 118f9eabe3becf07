/**
 * The player worker: receives the encoded frames of the three color receivers
 * (one RTCRtpScriptTransform each), merges them by RTP timestamp, decodes them
 * with WebCodecs and draws them on the page's canvas on a display clock at the
 * source frame rate, scoring each displayed frame with the server's PSNR table.
 */
import type { Color } from '@pels/shared/pels/color';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { FrameIndexer } from '../quality/frameIndex';
import { QualityMonitor } from '../quality/qualityMonitor';
import { AvSync, type AudioTiming } from './avSync';
import { Vp8Decoder } from './decoder';
import { FrameDisplay } from './display';
import { classifyVp8Frame, WriteBackPolicy } from './frameClassifier';
import { FrameMerger, type MergerDecision, type TemporalId } from './frameMerger';
import { LiveLatency } from './liveLatency';
import { KeyframeRequestThrottle, retransmissionWaitMs, retransmittedSlots } from './retransmission';
import { CanvasRenderer } from './renderer';
import { StatsCollector } from './stats';
import { isTransformOptions, STATS_INTERVAL_MS, type PageToWorker, type WorkerToPage } from './workerProtocol';

// The client's tsconfig mixes DOM and WebWorker libs, where `self` is typed as Window.
const scope = self as unknown as DedicatedWorkerGlobalScope;

function post(message: WorkerToPage): void {
  scope.postMessage(message);
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

interface Payload {
  data: Uint8Array<ArrayBuffer>;
  color: Color;
  /** When it reached the worker (page epoch ms), for the latency's stages. */
  arrivedMs: number;
}

type Init = Extract<PageToWorker, { type: 'init' }>;

class Player {
  private readonly merger: FrameMerger<Payload>;
  private readonly writeBack = new WriteBackPolicy();
  private readonly stats = new StatsCollector();
  private readonly decoder: Vp8Decoder;
  private readonly indexer: FrameIndexer;
  private readonly display: FrameDisplay;
  readonly quality: QualityMonitor;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private playing = false;
  /** Green's transform: where key-frame requests go. */
  private green: RTCRtpScriptTransformer | undefined;
  private readonly keyframeRequests = new KeyframeRequestThrottle();
  private readonly frameMs: number;
  private readonly renditions: Init['renditions'];
  /** Lip sync, once the stream's sound is consumed. */
  private avSync: AvSync | null = null;
  /** Entry at the server to display, per frame; and the server's clock against this one. */
  private readonly latency = new LiveLatency();
  private clockOffsetMs: number | null = null;
  /** The last decoded frame's index: where the sound's timestamps are read near. */
  private lastIndex: number;

  constructor(init: Init) {
    this.renditions = init.renditions;
    const frameMs = init.ticksPerFrame / 90; // RTP video clock: 90 kHz
    this.frameMs = frameMs;
    this.indexer = new FrameIndexer(init.timestampBase, init.ticksPerFrame, init.indexHint);
    this.lastIndex = init.indexHint;
    // A checksum that cannot be computed is not a decode error: it only goes uncompared.
    this.quality = new QualityMonitor(frameMs, (message) => console.warn(message));
    this.display = new FrameDisplay({
      frameMs,
      renderer: new CanvasRenderer(init.canvas, init.renditions[0]),
      onSamples: (samples) => this.quality.displayed(samples),
      onDrawn: (index, atMs) => {
        this.avSync?.drawn(index, atMs);
        this.latency.drawn(index, performance.timeOrigin + atMs);
      },
      onError: (message) => this.stats.error(message),
    });
    this.merger = new FrameMerger({ ticksPerFrame: init.ticksPerFrame, playoutDeadlineMs: init.playoutDeadlineMs });
    // With sound, frames missing past their sound's playout are given up (frameMerger.ts).
    this.merger.setSoundPlayout((timestamp) => {
      const lateness = this.avSync?.latenessMs ?? null;
      return lateness === null ? null : this.indexer.indexOf(timestamp) * frameMs + lateness;
    });
    this.decoder = new Vp8Decoder({
      onFrame: (frame, temporalId) => this.onDecoded(frame, temporalId),
      onError: (message) => {
        this.stats.error(message);
        this.merger.awaitKeyframe();
      },
    });
    setInterval(() => {
      const now = performance.now();
      const latency = this.latency.stats(this.clockOffsetMs);
      const stats = { ...this.stats.snapshot(now, this.quality.stats()), avSyncMs: this.avSync?.offsetMs ?? null, latencyMs: latency.fromIngest, latencyFromCaptureMs: latency.fromCapture, latencyStagesMs: latency.stages };
      post({ type: 'stats', stats, soundLeadMs: this.display.soundLeadMs(now) });
      post({ type: 'quality', update: this.quality.update(now) });
    }, STATS_INTERVAL_MS);
  }

  attach(transformer: RTCRtpScriptTransformer): void {
    const options: unknown = transformer.options;
    if (!isTransformOptions(options)) {
      this.stats.error(`frame transform without a color: ${JSON.stringify(options)}`);
      return;
    }
    if (options.color === 'green') this.green = transformer;
    void this.pump(transformer, options.color);
  }

  /** The page's reading of the transport: the merger waits for retransmissions by the RTT. */
  network(message: Extract<PageToWorker, { type: 'network' }>): void {
    this.merger.setRetransmission(retransmittedSlots(message.retransmitted), retransmissionWaitMs(message.rttMs, this.frameMs));
    this.stats.recovered(message.packetsRecovered);
  }

  /** Rows of the quality table: their scores, and when their frames entered the server. */
  addRows(frames: QualityFrame[]): void {
    this.quality.addRows(frames);
    for (const f of frames) if (f.ingestMs !== undefined && !f.rendition) this.latency.frameTimes(f.index, { ingestMs: f.ingestMs, encodedMs: f.encodedMs, captureMs: f.captureMs });
  }

  clockOffset(offsetMs: number): void {
    this.clockOffsetMs = offsetMs;
  }

  /** The sound's timestamps: from now on the display waits for the sound. */
  audioTiming(timing: AudioTiming): void {
    this.avSync = new AvSync(timing, this.frameMs);
  }

  /** Where the sound's playout is: frames are due when their instant plays. */
  audioPlayed(rtpTimestamp: number, atEpochMs: number): void {
    if (!this.avSync) return;
    this.avSync.played(rtpTimestamp, atEpochMs - performance.timeOrigin, this.lastIndex);
    this.display.setSoundLateness(this.avSync.latenessMs);
  }

  private async pump(transformer: RTCRtpScriptTransformer, color: Color): Promise<void> {
    const reader = (transformer.readable as ReadableStream<RTCEncodedVideoFrame>).getReader();
    const writer = (transformer.writable as WritableStream<RTCEncodedVideoFrame>).getWriter();
    for (;;) {
      let result: ReadableStreamReadResult<RTCEncodedVideoFrame>;
      try {
        result = await reader.read();
      } catch {
        return; // the receiver went away with its transport
      }
      if (result.done) return;
      try {
        this.onFrame(result.value, color, writer);
      } catch (err) {
        this.stats.error(`frame on ${color}: ${describe(err)}`);
      }
    }
  }

  private onFrame(frame: RTCEncodedVideoFrame, color: Color, writer: WritableStreamDefaultWriter<RTCEncodedVideoFrame>): void {
    // A copy: the frame's own buffer may be handed back to Chromium below.
    const data = new Uint8Array(frame.data.slice(0));
    const cls = classifyVp8Frame(data);
    const writeBack = this.writeBack.decide(color, cls, data);
    if (writeBack.kind !== 'none') {
      if (writeBack.kind === 'replace') frame.data = writeBack.data.buffer;
      writer.write(frame).catch(() => undefined); // fails only once the receiver is gone
    }
    if (cls.kind === 'invalid') {
      this.stats.error(`unreadable VP8 frame on ${color}: ${cls.reason}`);
      return;
    }
    // The server's tiny keyframes that start a color's receiver are not frames of the stream: not counted.
    if (cls.kind === 'synthetic-keyframe') return;
    this.stats.received(color);
    const rtpTimestamp = frame.getMetadata().rtpTimestamp ?? frame.timestamp;
    const decisions = this.merger.push(
      { rtpTimestamp, keyframe: cls.keyframe, temporalId: cls.temporalId, payload: { data, color, arrivedMs: performance.timeOrigin + performance.now() } },
      performance.now(),
    );
    this.apply(decisions);
  }

  private apply(decisions: MergerDecision<Payload>[]): void {
    for (const d of decisions) {
      const { frame } = d;
      const fate = d.action === 'decode' ? 'decodable' : d.action === 'skip' ? 'undecodable' : 'late';
      const index = this.indexer.indexOf(d.timestamp);
      this.quality.arrived(index, frame.payload.color, frame.temporalId, frame.payload.data.length, fate);
      if (d.action === 'decode') {
        this.latency.arrived(index, frame.payload.arrivedMs);
        this.decoder.decode({ data: frame.payload.data, timestamp: d.timestamp, keyframe: frame.keyframe, temporalId: frame.temporalId });
      } else if (d.action === 'skip') {
        this.stats.skipped();
      } else {
        this.stats.late();
      }
    }
    this.requestKeyframe();
    this.schedulePoll();
  }

  /**
   * The base chain is broken beyond what retransmission repaired (a base frame
   * missing past its deadline, a decoder error): ask green's sender for a
   * keyframe, throttled, since the next periodic one may be seconds away.
   */
  private requestKeyframe(): void {
    const green = this.green;
    if (!green || !this.merger.isAwaitingKeyframe || !this.keyframeRequests.take(performance.now())) return;
    green.sendKeyFrameRequest().then(
      () => this.stats.pliSent(),
      (err: unknown) => console.warn(`key-frame request failed: ${describe(err)}`),
    );
  }

  /** Wakes up at the playout deadline of the oldest waiting frame. */
  private schedulePoll(): void {
    clearTimeout(this.pollTimer);
    const deadline = this.merger.nextDeadlineMs();
    if (deadline === undefined) return;
    this.pollTimer = setTimeout(() => this.apply(this.merger.poll(performance.now())), Math.max(0, deadline - performance.now()));
  }

  private onDecoded(frame: VideoFrame, temporalId: TemporalId): void {
    const now = performance.now();
    // The decoder was given the unwrapped RTP timestamp; it comes back as the frame's timestamp.
    const index = this.indexer.indexOf(frame.timestamp);
    this.lastIndex = index;
    // The stream's renditions differ in size: a frame's size says which one it is.
    const rendition = Math.max(0, this.renditions.findIndex((r) => r.width === frame.displayWidth && r.height === frame.displayHeight));
    this.stats.decoded(temporalId, frame.displayWidth, frame.displayHeight, rendition, now);
    this.quality.decoded(index, frame.clone(), rendition);
    this.latency.decoded(index, performance.timeOrigin + now);
    this.display.decoded(index, frame, now);
    if (!this.playing) {
      this.playing = true;
      post({ type: 'playing', stats: this.stats.snapshot(now, this.quality.stats()) });
    }
  }
}

let player: Player | undefined;
/** Transforms that arrive before `init`; their frames wait in the stream meanwhile. */
const waiting: RTCRtpScriptTransformer[] = [];
/** PSNR table rows that arrive while the player starts; they cover its first frames. */
const earlyRows: QualityFrame[] = [];
/** The server's clock offset, if it comes while the player starts. */
let earlyOffset: number | undefined;
/** The sound's timing, if it comes while the player starts. */
let earlyTiming: AudioTiming | undefined;

scope.onrtctransform = (event) => {
  if (player) player.attach(event.transformer);
  else waiting.push(event.transformer);
};

scope.onmessage = (event: MessageEvent<PageToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case 'init':
      void start(message);
      break;
    case 'quality':
      if (player) player.addRows(message.frames);
      else earlyRows.push(...message.frames);
      break;
    case 'network':
      player?.network(message); // sent every second: a later one serves a player still starting
      break;
    case 'audioTiming':
      if (player) player.audioTiming(message.timing);
      else earlyTiming = message.timing;
      break;
    case 'audioPlayed':
      player?.audioPlayed(message.rtpTimestamp, message.atEpochMs);
      break;
    case 'clockOffset':
      if (player) player.clockOffset(message.offsetMs);
      else earlyOffset = message.offsetMs;
      break;
  }
};

async function start(init: Init): Promise<void> {
  try {
    await Vp8Decoder.checkSupport();
    player = new Player(init);
  } catch (err) {
    post({ type: 'fatal', message: describe(err) });
    return;
  }
  for (const t of waiting.splice(0)) player.attach(t);
  if (earlyTiming) player.audioTiming(earlyTiming);
  if (earlyOffset !== undefined) player.clockOffset(earlyOffset);
  player.addRows(earlyRows.splice(0));
}
