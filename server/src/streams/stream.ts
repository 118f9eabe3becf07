import { EventEmitter } from 'node:events';
import type { types as ms } from 'mediasoup';
import type { StreamInfo, ViewerClosed } from '@pels/shared/protocol/signaling';
import { ClosedError, RequestError } from '../errors';
import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import type { RateControllerName } from '@pels/shared/rate/names';
import type { FlowModeName, ViewerState } from '@pels/shared/protocol/api';
import type { KeyframeCounts, LayerKbps } from '@pels/shared/protocol/operator';
import { FfmpegIngest, type IngestStatus } from '../ingest/ffmpegIngest';
import { operatorSourceText, PUBLIC_SOURCE_ERROR, publicSourceLabel } from '../ingest/sourceRedaction';
import { probeBoardFor, type RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import type { ProbeBoard } from '@pels/shared/pels/probeBoard';
import type { ViewerGateParams } from '@pels/shared/upta/viewerGate';
import type { EncodeSettings, Rendition, SourceSpec } from '../ingest/sourceSpec';
import type { Fanout, FeedbackSource } from '../config';
import type { Limits } from '../limits/limits';
import type { Publisher } from '../live/publisher';
import type { Logger } from '../log';
import type { DscpMarker } from '../net/dscpMarker';
import { FrameEntryTimes } from './frameEntryTimes';
import type { QualityDrops } from '../quality/dropWarning';
import type { QualityListener } from '../quality/qualityFeed';
import type { MediaWorkerPool } from '../sfu/mediaWorkerPool';
import { SharedFanout } from '../viewer/sharedFanout';
import { ViewerSession } from '../viewer/viewerSession';
import type { KeyframeReason } from './keyframeRequests';
import { IngestFrames } from './ingestFrames';
import { RenditionPipeline } from './renditionPipeline';
import { StreamAudio } from './streamAudio';
import { PacerClock } from '../flow/pacerClock';
import type { AudioPlan } from '../ingest/sourceSpec';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { StreamIngest, Upstream } from './streamIngest';

export interface StreamOptions {
  id: string;
  name: string;
  /** Checked by the source policy (resolveSource). */
  source: SourceSpec;
  encode: EncodeSettings;
  /** Lower renditions, highest first (rendition 0 is `encode`), and when a viewer moves between them. */
  renditions: readonly Rendition[];
  renditionPolicy: RenditionPolicyParams;
  /** The media workers: the stream has a router on each, a new viewer goes to the least loaded. */
  media: MediaWorkerPool;
  /** Least time between keyframes the viewers' requests force (KEYFRAME_MIN_GAP_MS). */
  keyframeMinGapMs: number;
  /** FANOUT: each viewer its own flow (PELS), or one set of producers for all (the baseline). */
  fanout: Fanout;
  control: ControlLoopParams;
  feedback: FeedbackSource;
  /** Where viewers' control inputs are recorded (CONTROL_RECORD_DIR); absent: not recorded. */
  controlRecordDir?: string;
  dscp: DscpMarker;
  /** Shared by every stream: places for viewers and the DTLS deadline. */
  limits: Limits;
  /** UPTA=on: each viewer's useless-packet avoidance, by its rendition's PSNR table; absent: off. */
  upta?: ViewerGateParams;
  /** A live stream whose publisher went away stays `reconnecting` this long (PUBLISH_RECONNECT_S). */
  reconnectMs?: number;
  /** An edge's stream: its frames and quality rows come from the origin (absent: ingest and quality measured here). */
  upstream?: Upstream;
  log: Logger;
}

/** MKC may probe above the stream's measured rate by this much (the rate is an average; frames vary). */
const CEILING_HEADROOM = 1.25;
const BOUNDS_UPDATE_MS = 1000;
/**
 * A join while no worker has this stream's router (each restarting after a kill) waits this long for one, rather
 * than failing: the dead worker's viewers all rejoin at once, and a failure each would put them on ever longer
 * backoffs (soak: worker kills recovered in 12.5-25 s).
 */
const ROUTER_WAIT_MS = 10_000;
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
  /** Each frame set, as the viewers get it (an origin pipes it on to its edges). */
  frames: [LayeredFrame[]];
};

/** What the stream has on one media worker: its router there and, with a shared fan-out, the producers every viewer there consumes. */
interface WorkerSlot {
  router: ms.Router | null;
  fanout: SharedFanout | null;
}

/**
 * One source: its ingest (FFmpeg and an encoder per rendition), its mediasoup
 * router and its viewers. Frames flow one way: ingest -> layering, one set of
 * renditions per source frame -> each viewer's flow, which sends one of them;
 * the viewers' keyframe requests go back to the encoders, throttled per rendition.
 * Each rendition's quality is measured at the stream's size.
 */
export class Stream extends EventEmitter<StreamEvents> {
  readonly id: string;
  /** By media worker. */
  private readonly workers: WorkerSlot[];
  private readonly ingest: StreamIngest;
  /** The ingest's frames in layered sets, and each rendition's quality measured (not on an edge). */
  private readonly ingestFrames: IngestFrames;
  /** Each viewer and the media worker it is on. */
  private readonly viewers = new Map<string, { session: ViewerSession; worker: number }>();
  private framesIngested = 0;
  private closed = false;
  /** Joins waiting for a router (ROUTER_WAIT_MS): woken when one is made, or the stream closes. */
  private readonly routerWaiters = new Set<() => void>();
  /** The operator's rate controller for this stream; null: RATE_CONTROLLER's. */
  private controllerChoice: RateControllerName | null = null;
  /** By rendition (0: the full size). */
  private readonly pipelines: RenditionPipeline[];
  private readonly boundsTimer: NodeJS.Timeout;
  /** When each frame entered the server and was encoded (and captured), for the players' latency (with the quality rows). */
  private readonly entryTimes: FrameEntryTimes;
  private readonly probeBoard: ProbeBoard;
  /** The one ticker of the stream's pacers (its viewers' flows, its shared fan-outs). */
  private readonly pacerClock = new PacerClock();
  /** The sound, one producer per router; and what the current run does with the source's sound. */
  readonly audio: StreamAudio;
  private audioPlan: AudioPlan = 'none';

  constructor(private readonly opts: StreamOptions) {
    super();
    // Every viewer's connection listens for 'info': as many listeners as viewers is the design, not a leak.
    this.setMaxListeners(0);
    this.id = opts.id;
    this.workers = Array.from({ length: opts.media.size }, () => ({ router: null, fanout: null }));
    const count = 1 + opts.renditions.length;
    this.ingest = opts.upstream?.ingest ?? new FfmpegIngest(opts.source, opts.encode, opts.log.child({ stream: opts.id }), { renditions: opts.renditions, ...(opts.reconnectMs !== undefined ? { reconnectMs: opts.reconnectMs } : {}) });
    this.ingest.on('status', () => this.emit('info', this.publicInfo()));
    this.probeBoard = probeBoardFor(opts.renditionPolicy);
    const fps = opts.encode.frameRate;
    this.entryTimes = new FrameEntryTimes(QUALITY_WINDOW_S * fps);
    this.pipelines = Array.from({ length: count }, (_, r) => new RenditionPipeline({
      keyframeMinGapMs: opts.keyframeMinGapMs,
      requestKeyframe: () => this.ingest.requestKeyframe(r),
      quality: { windowFrames: QUALITY_WINDOW_S * fps, backlogFrames: QUALITY_BACKLOG_S * fps, intervalMs: QUALITY_BATCH_MS },
    }));
    this.ingestFrames = new IngestFrames({
      encode: opts.encode,
      renditions: opts.renditions,
      // An edge's rows are the origin's.
      ...(opts.upstream ? {} : { measure: { onRows: (r, rows) => this.pipelines[r]!.qualityFeed.add(this.entryTimes.stamp(rows)), log: opts.log.child({ stream: opts.id, component: 'quality' }) } }),
    });
    // An upstream's rows count their frames as its frames do (the run's pts): here they take the stream's index.
    opts.upstream?.onQualityRows((r, rows) => this.pipelines[r]?.qualityFeed.add(rows.map((row) => ({ ...row, index: this.ingestFrames.runStartIndex + row.index }))));
    this.audio = new StreamAudio(opts.encode.frameRate, opts.media.size);
    this.ingest.on('run', (audio) => {
      this.ingestFrames.onRun();
      this.audio.onRun(this.ingestFrames.runStartIndex);
      if (audio !== this.audioPlan) {
        this.audioPlan = audio;
        this.emit('info', this.publicInfo());
      }
    });
    this.ingest.on('audio', (p) => this.audio.send(p));
    // Emitted right after its run's 'run'. Not listened to on an edge: the ingest closes the pipe.
    if (this.ingestFrames.measured) this.ingest.on('reference', (fd) => this.ingestFrames.onReference(fd));
    this.ingest.on('frame', (f, rendition, ingestMs, captureMs) => {
      if (rendition === 0) this.entryTimes.note(this.ingestFrames.runStartIndex + Number(f.pts), { ingestMs, encodedMs: Date.now(), ...(captureMs === undefined ? {} : { captureMs }) });
      let sets;
      try {
        sets = this.ingestFrames.push(rendition, f.data, Number(f.pts));
      } catch (err) {
        this.opts.log.warn({ stream: this.id, rendition, err }, 'skipping a frame whose VP8 header cannot be read');
        return;
      }
      for (const { pts, frames } of sets) {
        this.framesIngested++;
        const now = Date.now();
        frames.forEach((frame, r) => this.pipelines[r]!.onFrame(frame, now));
        // The shared fan-out (a measurement baseline) forwards the full-size rendition to everyone, once per worker.
        if (this.opts.fanout === 'shared') for (const w of this.workers) w.fanout?.sendFrame(frames[0]!, now);
        else for (const v of this.viewers.values()) v.session.sendFrame(frames, now);
        this.emit('frames', frames);
        // After the viewers: measuring quality never delays a frame.
        this.ingestFrames.measure(frames, pts);
      }
    });
    this.boundsTimer = setInterval(() => this.updateRateBounds(), BOUNDS_UPDATE_MS);
  }

  /**
   * MKC's floor is the lowest rendition's base layer (always sent) and its
   * ceiling the whole top rendition. `startKbps`: the top rendition's base
   * rate, where a new viewer starts.
   */
  private rateBounds(): { minKbps: number; maxKbps: number; startKbps: number } {
    const now = Date.now();
    const top = this.pipelines[0]!.layerRates.rates(now);
    const lowest = this.pipelines.at(-1)!.layerRates.rates(now);
    if (!top || !lowest) return { minKbps: this.opts.control.mkc.minKbps, maxKbps: this.opts.control.mkc.maxKbps, startKbps: this.opts.control.mkc.minKbps };
    return { minKbps: lowest.tid0, maxKbps: Math.max(top.tid0, top.total * CEILING_HEADROOM), startKbps: top.tid0 };
  }

  private updateRateBounds(): void {
    const { minKbps, maxKbps } = this.rateBounds();
    const now = Date.now();
    const rates = this.pipelines.map((p) => p.layerRates.rates(now));
    const bases = rates.map((r) => r?.tid0 ?? null);
    const fulls = rates.map((r) => r?.total ?? null);
    for (const { session } of this.viewers.values()) {
      session.setRateBounds(minKbps, maxKbps, now);
      session.setRenditionRates(bases, fulls);
    }
    if (fulls[0]) for (const w of this.workers) w.fanout?.setTargetKbps(fulls[0]);
  }

  async start(): Promise<void> {
    await Promise.all(this.workers.map((_, i) => this.makeRouter(i)));
    this.ingest.start();
  }

  /** Media worker `index` was replaced: the viewers on its old router are gone. */
  async onMediaWorkerRestarted(index: number): Promise<void> {
    for (const { session, worker } of [...this.viewers.values()]) if (worker === index) session.close('media worker restarted');
    await this.makeRouter(index);
  }

  private async makeRouter(index: number): Promise<void> {
    const slot = this.workers[index]!;
    slot.router = null;
    slot.fanout?.close();
    slot.fanout = null;
    const router = await this.opts.media.createRouter(index);
    await this.audio.attach(index, router, `pels-${this.id}`);
    if (this.opts.fanout === 'shared') slot.fanout = await SharedFanout.create(router, this.id, (reason) => this.pipelines[0]!.keyframes.request(reason), this.pacerClock);
    slot.router = router;
    this.wakeRouterWaiters();
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
      renditions: [enc, ...this.opts.renditions].map(({ width, height, bitrateKbps }) => ({ width, height, bitrateKbps })),
      frameRate: enc.frameRate,
      ticksPerFrame: this.ingestFrames.ticksPerFrame,
      framesIngested: this.framesIngested,
      restarts: s.restarts,
      audio: this.audioPlan === 'none' ? null : { codec: 'opus', passthrough: this.audioPlan === 'copy' },
    };
  }

  /** What the current ingest run does with the source's sound. */
  get currentAudioPlan(): AudioPlan {
    return this.audioPlan;
  }

  /** A live stream (source `live:`) takes publishers; others read their source themselves. */
  get isLive(): boolean {
    return this.opts.source.kind === 'live';
  }

  /** A live stream's publisher now, or null. */
  get publisher(): Publisher | null {
    return this.ingest.currentPublisher;
  }

  /** A live stream's new publisher (its key was checked): one already publishing is closed. */
  attachPublisher(p: Publisher): void {
    this.ingest.attachPublisher(p);
  }

  /** Ends a live stream's publisher, if any (its key was revoked). */
  dropPublisher(reason: string): void {
    this.ingest.detachPublisher(reason);
  }

  /** Quality planes dropped unscored so far, by where (the reader, the renditions' threads): for /metrics. */
  qualityDrops(): Readonly<QualityDrops> {
    return this.ingestFrames.qualityDrops;
  }

  /** Measured bitrate of each layer of the top rendition; null until a second of frames has come. */
  layerKbps(): LayerKbps | null {
    return this.pipelines[0]!.layerRates.rates(Date.now());
  }

  /** Keyframe requests of the viewers by reason, and the keyframes they forced, over all renditions. */
  keyframeCounts(): KeyframeCounts {
    const sum: KeyframeCounts = { requests: { join: 0, pli: 0, switch: 0 }, forced: 0 };
    for (const p of this.pipelines) {
      const t = p.keyframes.totals;
      for (const reason of Object.keys(sum.requests) as KeyframeReason[]) sum.requests[reason] += t.requests[reason];
      sum.forced += t.forced;
    }
    return sum;
  }

  /** A keyframe of rendition `rendition`, throttled as the viewers' requests are (an edge's request). */
  requestKeyframe(rendition: number, reason: KeyframeReason): void {
    this.pipelines[rendition]?.keyframes.request(reason);
  }

  /** Each frame set from now on; returns the unsubscribe function. */
  subscribeFrames(listener: (frames: LayeredFrame[]) => void): () => void {
    this.on('frames', listener);
    return () => this.off('frames', listener);
  }

  /** Controller parameters for viewers that join from now on; current viewers keep theirs. */
  setControlParams(control: ControlLoopParams): void {
    this.opts.control = control;
  }

  /** The same on every worker's router (one codec list). */
  get routerRtpCapabilities(): ms.RtpCapabilities {
    const router = this.workers.find((w) => w.router && !w.router.closed)?.router;
    if (!router) throw new RequestError('unavailable', 'media router is not available, try again');
    return router.rtpCapabilities;
  }

  viewerCount(): number {
    return this.viewers.size;
  }

  /** Called with the stream's info whenever its state changes; returns the unsubscribe function. */
  subscribeInfo(listener: (info: StreamInfo) => void): () => void {
    this.on('info', listener);
    return () => this.off('info', listener);
  }

  /** One rendition's PSNR table rows, in batches; returns the unsubscribe function. */
  subscribeQuality(rendition: number, listener: QualityListener): () => void {
    const feed = this.pipelines[rendition]?.qualityFeed;
    if (!feed) throw new RangeError(`stream ${this.id} has no rendition ${rendition}`);
    return feed.subscribe(listener);
  }

  viewerStates(): ViewerState[] {
    return [...this.viewers.values()].map((v) => v.session.state());
  }

  forEachViewer(fn: (v: ViewerSession) => void): void {
    for (const v of this.viewers.values()) fn(v.session);
  }

  /** The rate controller of viewers that join from now on: the operator's choice for this stream, or RATE_CONTROLLER. */
  get controller(): RateControllerName {
    return this.controllerChoice ?? this.opts.control.controller ?? 'mkc';
  }

  /**
   * The least loaded worker with this stream's router: a worker restarting has none yet, and the viewer goes to one
   * that has. While none has, each join waits on its own for the first router back (none waits behind another's join).
   */
  private async workerWithRouter(): Promise<number> {
    const deadline = Date.now() + ROUTER_WAIT_MS;
    for (;;) {
      if (this.closed) throw new ClosedError(`stream ${this.id}`);
      const worker = this.opts.media.leastLoaded((i) => this.workers[i]?.router?.closed === false);
      if (this.workers[worker]?.router?.closed === false) return worker;
      const leftMs = deadline - Date.now();
      if (leftMs <= 0) throw new RequestError('unavailable', 'media router is not available, try again');
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.routerWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, leftMs);
        this.routerWaiters.add(wake);
      });
    }
  }

  private wakeRouterWaiters(): void {
    for (const wake of [...this.routerWaiters]) wake();
  }

  /** The operator's choice for this stream's next viewers (viewers already watching keep theirs). */
  setController(controller: RateControllerName): void {
    this.controllerChoice = controller;
  }

  /** controller: the player's choice; by default the stream's. */
  /** `address`: the client's, for the per-address limit (undefined: not counted per address). */
  async addViewer(
    id: string,
    mode: FlowModeName,
    onClose: (closed: ViewerClosed) => void,
    controller: RateControllerName = this.controller,
    address?: string,
  ): Promise<ViewerSession> {
    if (this.closed) throw new ClosedError(`stream ${this.id}`);
    const { media } = this.opts;
    const worker = await this.workerWithRouter();
    const { router, fanout } = this.workers[worker]!;
    if (!router || router.closed) throw new RequestError('unavailable', 'media router is not available, try again');
    const releasePlace = this.opts.limits.viewers.take(this.id, address);
    const releaseWorker = media.take(worker);
    const release = () => {
      releasePlace();
      releaseWorker();
    };
    const { startKbps, ...bounds } = this.rateBounds();
    const { mkc } = this.opts.control;
    const viewer = await ViewerSession.create({
      id,
      mode,
      worker: { router, webRtcServer: media.webRtcServer(worker), packetSinks: media.packetSinks(worker), requests: media.requests(worker) },
      stream: {
        id: this.id,
        renditions: this.pipelines.length,
        renditionPolicy: this.opts.renditionPolicy,
        probeBoard: this.probeBoard,
        pacerClock: this.pacerClock,
        onKeyframeRequest: (reason, rendition) => this.pipelines[rendition]?.keyframes.request(reason),
        fanout: fanout ?? undefined,
        audio: { producer: this.audio.producer(worker), timestampBase: this.audio.timestampBase },
        ...(this.opts.upta ? { upta: { params: this.opts.upta, model: (r: number) => this.pipelines[r]?.intelligibility.current(Date.now()) ?? null } } : {}),
      },
      control: {
        loop: { ...this.opts.control, controller, mkc: { ...mkc, ...bounds, initialKbps: Math.max(mkc.initialKbps, startKbps) } },
        feedback: this.opts.feedback,
        ...(this.opts.controlRecordDir !== undefined ? { recordDir: this.opts.controlRecordDir } : {}),
      },
      server: { dscp: this.opts.dscp, limits: this.opts.limits, log: this.opts.log },
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
    this.viewers.set(id, { session: viewer, worker });
    this.emit('newviewer', viewer);
    return viewer;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.boundsTimer);
    for (const v of [...this.viewers.values()]) v.session.close('stream closed');
    for (const p of this.pipelines) p.keyframes.close();
    this.ingest.close();
    this.ingestFrames.close();
    for (const p of this.pipelines) p.close();
    for (const w of this.workers) w.router?.close();
    this.wakeRouterWaiters();
    this.audio.close();
    this.pacerClock.close();
  }
}
