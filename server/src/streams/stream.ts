import { EventEmitter } from 'node:events';
import type { types as ms } from 'mediasoup';
import type { StreamInfo, ViewerClosed } from '@pels/shared/protocol/signaling';
import { ClosedError, RequestError } from '../errors';
import type { ControlLoopParams } from '@pels/shared/pels/controlLoop';
import type { FlowModeName, ViewerState } from '@pels/shared/protocol/api';
import type { KeyframeCounts, LayerKbps } from '@pels/shared/protocol/operator';
import { FfmpegIngest, type IngestStatus } from '../ingest/ffmpegIngest';
import { operatorSourceText, PUBLIC_SOURCE_ERROR, publicSourceLabel } from '../ingest/sourceRedaction';
import type { EncodeSettings, SourceSpec } from '../ingest/sourceSpec';
import { FrameLayering } from '../layering/layeredFrame';
import { LayerRateMeter } from '../layering/layerRates';
import type { Fanout, FeedbackSource } from '../config';
import type { Limits } from '../limits/limits';
import type { Logger } from '../log';
import type { DscpMarker } from '../net/dscpMarker';
import { QualityAnalyzer } from '../quality/qualityAnalyzer';
import { QualityFeed, type QualityListener } from '../quality/qualityFeed';
import { SharedFanout } from '../viewer/sharedFanout';
import { ViewerSession } from '../viewer/viewerSession';
import { KeyframeRequests } from './keyframeRequests';

export interface StreamOptions {
  id: string;
  name: string;
  /** Checked by the source policy (resolveSource). */
  source: SourceSpec;
  encode: EncodeSettings;
  /** The media worker's current WebRtcServer (the one RTC port), for new viewers' transports. */
  webRtcServer: () => ms.WebRtcServer;
  /** Least time between keyframes the viewers' requests force (KEYFRAME_MIN_GAP_MS). */
  keyframeMinGapMs: number;
  createRouter: () => Promise<ms.Router>;
  /** FANOUT: each viewer its own flow (PELS), or one set of producers for all (the baseline). */
  fanout: Fanout;
  control: ControlLoopParams;
  feedback: FeedbackSource;
  dscp: DscpMarker;
  /** Shared by every stream: places for viewers and the DTLS deadline. */
  limits: Limits;
  log: Logger;
}

/** MKC may probe above the stream's measured rate by this much (the rate is an average; frames vary). */
const CEILING_HEADROOM = 1.25;
const BOUNDS_UPDATE_MS = 1000;
/** PSNR table rows kept and sent: a 30 s window, batches twice a second, 2 s of backlog for a new viewer. */
const QUALITY_WINDOW_S = 30;
const QUALITY_BATCH_MS = 500;
const QUALITY_BACKLOG_S = 2;

type StreamEvents = {
  /** The ingest state changed; with the stream's public info (what players may see). */
  info: [StreamInfo];
  /** For monitoring (metrics): a viewer joined; and one left, with its final state. */
  newviewer: [ViewerSession];
  viewerclose: [ViewerState];
};

/**
 * One source: its ingest (FFmpeg and the encoder), its mediasoup router and
 * its viewers. Frames flow one way: ingest -> layering -> each viewer's flow;
 * the viewers' keyframe requests go back to the encoder, throttled.
 */
export class Stream extends EventEmitter<StreamEvents> {
  readonly id: string;
  private router: ms.Router | null = null;
  private fanout: SharedFanout | null = null;
  private readonly ingest: FfmpegIngest;
  private readonly layering: FrameLayering;
  private readonly viewers = new Map<string, ViewerSession>();
  private framesIngested = 0;
  private closed = false;
  private readonly ticksPerFrame: number;
  private readonly layerRates = new LayerRateMeter();
  private readonly boundsTimer: NodeJS.Timeout;
  private readonly quality: QualityAnalyzer;
  private readonly qualityFeed: QualityFeed;
  private readonly keyframes: KeyframeRequests;

  constructor(private readonly opts: StreamOptions) {
    super();
    this.id = opts.id;
    this.ticksPerFrame = Math.round(90000 / opts.encode.frameRate);
    this.layering = new FrameLayering(this.ticksPerFrame);
    this.ingest = new FfmpegIngest(opts.source, opts.encode, opts.log.child({ stream: opts.id }));
    this.ingest.on('status', () => this.emit('info', this.publicInfo()));
    this.keyframes = new KeyframeRequests(opts.keyframeMinGapMs, () => this.ingest.requestKeyframe());
    const fps = opts.encode.frameRate;
    this.qualityFeed = new QualityFeed({ windowFrames: QUALITY_WINDOW_S * fps, backlogFrames: QUALITY_BACKLOG_S * fps, intervalMs: QUALITY_BATCH_MS });
    this.quality = new QualityAnalyzer({
      width: opts.encode.width,
      height: opts.encode.height,
      frameRate: fps,
      onRows: (rows) => this.qualityFeed.add(rows),
      log: opts.log.child({ stream: opts.id, component: 'quality' }),
    });
    this.ingest.on('run', () => this.quality.newRun());
    this.ingest.on('reference', (chunk) => this.quality.onReference(chunk));
    this.ingest.on('frame', (f) => {
      let frame;
      try {
        frame = this.layering.next(f.data);
      } catch (err) {
        this.opts.log.warn({ stream: this.id, err }, 'skipping a frame whose VP8 header cannot be read');
        return;
      }
      this.framesIngested++;
      if (frame.keyframe) this.keyframes.onKeyframe();
      const now = Date.now();
      this.layerRates.add(frame.temporalId, frame.bytes, now);
      if (this.fanout) this.fanout.sendFrame(frame, now);
      else for (const v of this.viewers.values()) v.sendFrame(frame, now);
      // After the viewers: measuring quality never delays a frame.
      this.quality.onFrame(frame, Number(f.pts));
    });
    this.boundsTimer = setInterval(() => this.updateRateBounds(), BOUNDS_UPDATE_MS);
  }

  /** MKC's floor is the base layer (always sent) and its ceiling the whole stream. */
  private rateBounds(): { minKbps: number; maxKbps: number } {
    const r = this.layerRates.rates(Date.now());
    if (!r) return { minKbps: this.opts.control.mkc.minKbps, maxKbps: this.opts.control.mkc.maxKbps };
    return { minKbps: r.tid0, maxKbps: Math.max(r.tid0, r.total * CEILING_HEADROOM) };
  }

  private updateRateBounds(): void {
    const { minKbps, maxKbps } = this.rateBounds();
    const now = Date.now();
    for (const v of this.viewers.values()) v.setRateBounds(minKbps, maxKbps, now);
  }

  async start(): Promise<void> {
    await this.makeRouter();
    this.ingest.start();
  }

  /** The media worker was replaced: viewers on the old router are gone. */
  async onMediaWorkerRestarted(): Promise<void> {
    for (const v of [...this.viewers.values()]) v.close('media worker restarted');
    await this.makeRouter();
  }

  private async makeRouter(): Promise<void> {
    this.fanout = null;
    const router = await this.opts.createRouter();
    if (this.opts.fanout === 'shared') this.fanout = await SharedFanout.create(router, this.id, (reason) => this.keyframes.request(reason));
    this.router = router;
  }

  /**
   * The stream as the operator sees it (dashboard, snapshot): the source and
   * the ingest's own error, with URL credentials masked.
   */
  operatorInfo(): StreamInfo {
    return this.info(operatorSourceText(this.opts.source), this.ingest.currentStatus.error);
  }

  /**
   * The stream as anyone may see it (GET /api/streams, players): the source's
   * kind and a safe label, and a generic error; no URL, path or FFmpeg output.
   */
  publicInfo(): StreamInfo {
    return this.info(publicSourceLabel(this.opts.source), this.ingest.currentStatus.error === undefined ? undefined : PUBLIC_SOURCE_ERROR);
  }

  private info(source: string, error: string | undefined): StreamInfo {
    const s: IngestStatus = this.ingest.currentStatus;
    const enc = this.opts.encode;
    return {
      id: this.id,
      name: this.opts.name,
      source,
      state: s.state,
      ...(error !== undefined ? { error } : {}),
      width: enc.width,
      height: enc.height,
      frameRate: enc.frameRate,
      ticksPerFrame: this.ticksPerFrame,
      framesIngested: this.framesIngested,
      restarts: s.restarts,
    };
  }

  /** Measured bitrate of each layer; null until a second of frames has come. */
  layerKbps(): LayerKbps | null {
    return this.layerRates.rates(Date.now());
  }

  /** Keyframe requests of the viewers by reason, and the keyframes they forced. */
  keyframeCounts(): KeyframeCounts {
    return this.keyframes.totals;
  }

  /** Controller parameters for viewers that join from now on; current viewers keep theirs. */
  setControlParams(control: ControlLoopParams): void {
    this.opts.control = control;
  }

  get routerRtpCapabilities(): ms.RtpCapabilities {
    if (!this.router || this.router.closed) throw new RequestError('unavailable', 'media router is not available, try again');
    return this.router.rtpCapabilities;
  }

  viewerCount(): number {
    return this.viewers.size;
  }

  /** Called with the stream's info whenever its state changes; returns the unsubscribe function. */
  subscribeInfo(listener: (info: StreamInfo) => void): () => void {
    this.on('info', listener);
    return () => this.off('info', listener);
  }

  /** The stream's PSNR table rows, in batches; returns the unsubscribe function. */
  subscribeQuality(listener: QualityListener): () => void {
    return this.qualityFeed.subscribe(listener);
  }

  viewerStates(): ViewerState[] {
    return [...this.viewers.values()].map((v) => v.state());
  }

  forEachViewer(fn: (v: ViewerSession) => void): void {
    for (const v of this.viewers.values()) fn(v);
  }

  async addViewer(id: string, mode: FlowModeName, onClose: (closed: ViewerClosed) => void): Promise<ViewerSession> {
    if (this.closed) throw new ClosedError(`stream ${this.id}`);
    if (!this.router || this.router.closed) throw new RequestError('unavailable', 'media router is not available, try again');
    const webRtcServer = this.opts.webRtcServer();
    const release = this.opts.limits.viewers.take(this.id);
    const bounds = this.rateBounds();
    const { mkc } = this.opts.control;
    const viewer = await ViewerSession.create({
      id,
      streamId: this.id,
      router: this.router,
      mode,
      control: { ...this.opts.control, mkc: { ...mkc, ...bounds, initialKbps: Math.max(mkc.initialKbps, bounds.minKbps) } },
      feedback: this.opts.feedback,
      dscp: this.opts.dscp,
      webRtcServer,
      limits: this.opts.limits,
      log: this.opts.log,
      onKeyframeRequest: (reason) => this.keyframes.request(reason),
      fanout: this.fanout ?? undefined,
      onClose: (closed) => {
        release();
        this.viewers.delete(id);
        onClose(closed);
        this.emit('viewerclose', viewer.state());
      },
    }).catch((err: unknown) => {
      release();
      throw err;
    });
    this.viewers.set(id, viewer);
    this.emit('newviewer', viewer);
    return viewer;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.boundsTimer);
    for (const v of [...this.viewers.values()]) v.close('stream closed');
    this.keyframes.close();
    this.ingest.close();
    this.quality.close();
    this.qualityFeed.close();
    this.router?.close();
  }
}
