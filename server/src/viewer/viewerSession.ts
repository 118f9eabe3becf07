import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { ControlSnapshot } from '@pels/shared/control/controlCore';
import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import type { ReceiverReportsInput, RouterFeedbackInput } from '@pels/shared/control/input';
import type { RateControllerName } from '@pels/shared/rate/names';
import type { CongestionState, FlowModeName, MediaTransport, ViewerState } from '@pels/shared/protocol/api';
import type { ConsumerParams, DtlsParametersData, RenditionChoice, Request, ResponseData, RtpCapabilitiesData, TransportParams, ViewerClosed } from '@pels/shared/protocol/signaling';
import type { RenditionPolicyParams } from '@pels/shared/pels/renditionPolicy';
import type { ProbeBoard } from '@pels/shared/pels/probeBoard';
import { pinError } from '@pels/shared/control/renditionSwitch';
import { streamContext } from '@pels/shared/control/streamContext';
import type { IntelligibilityModel } from '@pels/shared/upta/intelligibility';
import type { ViewerGateParams } from '@pels/shared/upta/viewerGate';
import { ClosedError, RequestError } from '../errors';
import { ViewerFlow } from '../flow/viewerFlow';
import { PacedSender } from '../flow/pacedSender';
import type { PacerClock } from '../flow/pacerClock';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { FeedbackSource } from '../config';
import type { Limits } from '../limits/limits';
import type { Logger } from '../log';
import type { DscpMarker, DscpMarking } from '../net/dscpMarker';
import { RtxGate } from '../net/rtxGate';
import { parseRtcpFeedback } from '../rtp/rtcp';
import type { PacketSink, PacketSinks } from '../sfu/packetSink';
import { AUDIO_CLOCK_RATE } from '../sfu/mediaWorker';
import type { WorkerRequests } from '../sfu/workerRequests';
import type { KeyframeReason } from '../streams/keyframeRequests';
import { PAYLOAD_TYPE, produceColorStreams } from './colorStreams';
import { canColor, mediaTransport, modeInForce } from './mediaPath';
import { flowMode } from '@pels/shared/control/flowMode';
import { dscpFor, modeSwitchRefusal, passingColors, retransmittedColors, rtxDscpFor } from './colorStreamRules';
import { INITIAL_REPAIR, nextRepair, type RepairState } from './repairPolicy';
import { ViewerControl } from './viewerControl';
import { ViewerStats } from './viewerStats';
import { AudioStats } from './audioStats';
import type { SharedFanout } from './sharedFanout';

/** mediasoup repeats an unanswered PLI about once a second; one answer per burst is enough. */
const SYNTHETIC_KEYFRAME_MIN_GAP_MS = 200;


type QualityReport = Extract<Request, { method: 'reportQuality' }>['data'];

export interface ViewerSessionOptions {
  id: string;
  streamId: string;
  router: ms.Router;
  mode: FlowModeName;
  control: ControlLoopParams;
  /** Which feedback steps the controllers; the other kind is still measured, not acted on. */
  feedback: FeedbackSource;
  /** Where to record the viewer's control inputs (CONTROL_RECORD_DIR); absent: not recorded. */
  controlRecordDir?: string;
  dscp: DscpMarker;
  /** The worker's WebRtcServer: the one UDP and TCP port the viewer's transport shares with every other. */
  webRtcServer: ms.WebRtcServer;
  /** How the flow's packets reach the worker's producers. */
  packetSinks: PacketSinks;
  /** The stream's pacers' one ticker. */
  pacerClock: PacerClock;
  /** The worker's requests, timed: the join's and the stats polls' (a slow one is logged with the channel's backlog). */
  requests: WorkerRequests;
  /** The DTLS deadline and where its expiries are counted. */
  limits: Pick<Limits, 'settings' | 'rejections'>;
  log: Logger;
  /** How many renditions the stream has, and when the viewer moves between them. */
  renditions: number;
  renditionPolicy: RenditionPolicyParams;
  /** Shared by the stream's viewers: one up switch at a time, and what the others learn from it. */
  probeBoard: ProbeBoard;
  /** Asks a rendition's encoder for a keyframe (throttled there; one serves every viewer). */
  onKeyframeRequest: (reason: KeyframeReason, rendition: number) => void;
  /** FANOUT=shared: the stream's producers, fed once per frame; this viewer only consumes them. */
  fanout?: SharedFanout;
  /** Told once when the session closes, whatever closed it. */
  onClose: (closed: ViewerClosed) => void;
  /** Useless-packet avoidance (UPTA=on): base layer only, or nothing, while the viewer's loss makes the rest useless. */
  upta?: UptaOptions;
  /** The stream's sound on this viewer's router (streamAudio.ts; producer null: the router has none yet), and its timestamps' start. */
  audio: { producer: ms.Producer | null; timestampBase: number };
}

export interface UptaOptions {
  params: ViewerGateParams;
  /** The expected-quality model of a rendition's PSNR table; null until the table has rows. */
  model(rendition: number): IntelligibilityModel | null;
}

/**
 * One viewer of one stream: three producers (green, yellow, red) on a
 * DirectTransport fed by this viewer's flow, and their consumers on the
 * viewer's WebRtcTransport. Closing it closes everything it made.
 */
export class ViewerSession {
  readonly id: string;
  readonly connectedAt = Date.now();
  private closed = false;
  private sending = false;
  /** Resumed, and no keyframe sent on green since: its first frame is one on the way. */
  private awaitingKeyframe = false;
  private webRtcTransport: ms.WebRtcTransport | null = null;
  private readonly consumers = new Map<Color, ms.Consumer>();
  /** The sound, once the player asks for it (consumeAudio), and its counters. */
  private audio: { consumer: ms.Consumer; stats: AudioStats } | null = null;
  /** Each consumer's encoding (its SSRCs), read once: mediasoup copies a consumer's RTP parameters at every read. */
  private readonly encodings = new Map<Color, ms.RtpEncodingParameters>();
  private colors = new Set<Color>(COLORS);
  private readonly lastSynthetic: Record<Color, number> = { green: 0, yellow: 0, red: 0 };
  private marking: DscpMarking | null = null;
  private displayReport: QualityReport | null = null;
  /** The consumers' and transport's stats, polled once consuming: RTCP counters for the control core, repair counters, sent rate. */
  private readonly stats: ViewerStats;
  /** Set at creation, changed by the operator (setMode). */
  private requestedMode: FlowModeName;
  /** In force: the requested mode, or best effort on a path that cannot carry colors. */
  private mode: FlowModeName;
  /** The protocol of the ICE tuple in use, null before ICE has chosen one. */
  private tupleProtocol: 'udp' | 'tcp' | null = null;
  /** The player's report that its selected candidate is a TURN relay. */
  private relayed = false;
  /** The colors retransmitted, decided when consume() starts (by the mode then) and fixed from then on. */
  private retransmitted: readonly Color[] | null = null;
  /** Drops the retransmissions not wanted now; null when nftables is not in use or nothing is retransmitted. */
  private gate: RtxGate | null = null;
  /** Which colors PELS repairs, by the loss diagnosis (the gate lets their retransmissions through). */
  private repair: RepairState = INITIAL_REPAIR;
  /** The diagnosis the repair policy read last (at first the estimator's initial one, which reads nothing). */
  private diagnosed: CongestionState;
  /** Why yellow and red cannot be repaired under PELS, null when they can. */
  private repairUnavailable: string | null = null;
  /** A player that joined but never completes DTLS holds a viewer's place and a transport: it gets this long. */
  private readonly dtlsDeadline: NodeJS.Timeout;
  /** The flow's packets to each color's producer, paced. */
  private readonly paced: PacedSender;

  private constructor(
    private readonly opts: ViewerSessionOptions,
    /** Null with a shared fan-out: the stream's transport carries the producers. */
    private readonly direct: ms.DirectTransport | null,
    private readonly producers: Record<Color, ms.Producer>,
    /** Rate, gamma, receiver reports, rendition, UPTA and frame decisions: this session only feeds it and carries out its answers. */
    private readonly control: ViewerControl,
    readonly flow: ViewerFlow,
    /** Random start of this viewer's RTP timestamps; the player maps timestamps to frame indexes with it. */
    readonly timestampBase: number,
  ) {
    this.id = opts.id;
    this.paced = new PacedSender(direct ? packetSinks(producers, opts.packetSinks) : producers, opts.pacerClock);
    this.paced.setTargetKbps(control.state.rateKbps);
    this.stats = new ViewerStats({
      consumers: this.consumers,
      transport: () => this.webRtcTransport,
      sentBytes: () => ({ green: flow.counters.byColor.green.bytes, yellow: flow.counters.byColor.yellow.bytes, red: flow.counters.byColor.red.bytes }),
      onReports: (input) => this.onReports(input),
      awaitingReports: () => control.awaitingReports,
      onTick: (atMs) => control.step({ kind: 'tick', atMs }),
      requests: opts.requests,
    });
    this.requestedMode = opts.mode;
    this.mode = opts.mode;
    this.diagnosed = control.state.congestion;
    direct?.on('rtcp', (buf) => this.onRtcp(buf));
    direct?.on('routerclose', () => this.close('media router closed'));
    const { dtlsTimeoutMs } = opts.limits.settings;
    this.dtlsDeadline = setTimeout(() => {
      opts.limits.rejections.add('dtls_timeout');
      this.close(`DTLS not connected within ${dtlsTimeoutMs / 1000} s`);
    }, dtlsTimeoutMs);
  }

  static async create(opts: ViewerSessionOptions): Promise<ViewerSession> {
    const control = new ViewerControl({
      params: {
        origin: opts.id,
        control: opts.control,
        feedback: opts.feedback,
        mode: opts.mode,
        startMs: Date.now(),
        seed: randomInt(0, 2 ** 32),
        renditions: { count: opts.renditions, policy: opts.renditionPolicy },
        ...(opts.upta ? { upta: opts.upta.params } : {}),
      },
      context: streamContext({ board: opts.probeBoard, ...(opts.upta ? { model: opts.upta.model } : {}) }),
      ...(opts.controlRecordDir !== undefined ? { recordDir: opts.controlRecordDir } : {}),
      streamId: opts.streamId,
      log: opts.log,
    });
    // A shared fan-out's flow sends every frame to everyone: this viewer's control is measured, not obeyed.
    const shared = opts.fanout;
    if (shared) return new ViewerSession(opts, null, shared.producers, control, shared.flow, shared.timestampBase);
    const direct = await opts.requests.timed('createDirectTransport', () => opts.router.createDirectTransport());
    try {
      const { producers, ssrcs } = await opts.requests.timed('produce', () => produceColorStreams(direct, `pels-${opts.id}`));
      const timestampBase = randomInt(0, 2 ** 32);
      const flow = new ViewerFlow(ssrcs, PAYLOAD_TYPE, timestampBase);
      return new ViewerSession(opts, direct, producers, control, flow, timestampBase);
    } catch (err) {
      direct.close();
      throw err;
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get subscribedColors(): Color[] {
    return COLORS.filter((c) => this.colors.has(c));
  }

  /** The transport's parameters; the ICE servers, which depend on the server's settings, are the caller's to add. */
  async createTransport(): Promise<Omit<TransportParams, 'iceServers'>> {
    this.assertOpen();
    if (this.webRtcTransport) throw new RequestError('invalid_state', 'transport already created');
    // TCP candidates too, for networks that block UDP; ICE prefers UDP where both work.
    const t = await this.opts.requests.timed('createWebRtcTransport', () =>
      this.opts.router.createWebRtcTransport({ webRtcServer: this.opts.webRtcServer, enableUdp: true, enableTcp: true, preferUdp: true }),
    );
    if (this.closed) {
      t.close();
      throw new ClosedError('viewer');
    }
    this.webRtcTransport = t;
    t.on('dtlsstatechange', (state) => {
      if (state === 'connected') clearTimeout(this.dtlsDeadline);
      if (state === 'failed' || state === 'closed') this.close(`DTLS ${state}`);
    });
    t.on('icestatechange', (state) => {
      if (state === 'disconnected') this.opts.log.warn({ viewer: this.id }, 'ICE disconnected');
    });
    t.on('iceselectedtuplechange', (tuple) => {
      this.tupleProtocol = tuple.protocol;
      void this.applyMode();
    });
    return { id: t.id, iceParameters: t.iceParameters, iceCandidates: t.iceCandidates, dtlsParameters: t.dtlsParameters };
  }

  async connectTransport(dtlsParameters: DtlsParametersData): Promise<void> {
    const t = this.requireTransport();
    try {
      // The shape was checked at the edge; mediasoup checks the values (e.g. the fingerprint algorithm).
      await this.opts.requests.timed('connectTransport', () => t.connect({ dtlsParameters: dtlsParameters as ms.DtlsParameters }));
    } catch (err) {
      throw new RequestError('bad_request', `cannot connect transport: ${(err as Error).message}`);
    }
  }

  async consume(rtpCapabilities: RtpCapabilitiesData): Promise<ConsumerParams[]> {
    const t = this.requireTransport();
    if (this.retransmitted) throw new RequestError('invalid_state', 'already consuming');
    const caps = withoutCongestionControl(rtpCapabilities as ms.RtpCapabilities);
    // Fixed from here on, even while the consumers are being made (see modeSwitchRefusal).
    const retransmitted = (this.retransmitted = retransmittedColors(this.mode, this.opts.dscp.available));
    const out: ConsumerParams[] = [];
    try {
      for (const color of COLORS) {
        const producer = this.producers[color];
        if (!this.opts.router.canConsume({ producerId: producer.id, rtpCapabilities: caps })) {
          throw new RequestError('bad_request', 'the player cannot receive VP8');
        }
        // Paused until the player has attached its frame transforms.
        const enableRtx = retransmitted.includes(color);
        const consumer = await this.opts.requests.timed('consume', () => t.consume({ producerId: producer.id, rtpCapabilities: caps, paused: true, enableRtx, appData: { color } }));
        this.consumers.set(color, consumer);
        // Closed meanwhile (the player left): mediasoup still made the consumer, on a transport already closed, so nothing else would close it.
        this.assertOpen();
        this.encodings.set(color, consumer.rtpParameters.encodings?.[0] ?? {});
        out.push({ id: consumer.id, producerId: producer.id, kind: 'video', rtpParameters: consumer.rtpParameters, color });
      }
    } catch (err) {
      // All three or none: a half-made set would leave the viewer unable to try again.
      for (const c of this.consumers.values()) c.close();
      this.consumers.clear();
      this.encodings.clear();
      this.retransmitted = null;
      // mediasoup rejects values it cannot use with a TypeError: the player's mistake, not the server's.
      if (err instanceof TypeError) throw new RequestError('bad_request', `cannot consume: ${err.message}`);
      throw err;
    }
    const { dscp } = this.opts;
    if (dscp.available && retransmitted.length) this.gate = new RtxGate(dscp, this.rtxSsrcs());
    else if (!retransmitted.includes('yellow')) {
      this.repairUnavailable = dscp.available
        ? `consumed in ${this.mode} mode, without retransmission`
        : `consumed without retransmission: without nftables it could not be held back under congestion (${dscp.status.reason ?? 'disabled'})`;
      if (flowMode(this.mode).retransmission === 'repair') this.opts.log.info({ viewer: this.id, reason: this.repairUnavailable }, 'PELS repairs green only');
    }
    // In the same tick, so one nft transaction: the gate is closed from the first packet on.
    await Promise.all([this.markDscp(), this.applyGate()]);
    this.stats.start();
    return out;
  }

  /** The player's quality menu: one rendition held whatever the rate (from its next keyframe), or 'auto'. */
  pinRendition(rendition: RenditionChoice): void {
    this.assertOpen();
    if (this.opts.fanout) throw new RequestError('invalid_state', 'with a shared fan-out every viewer gets the full size');
    // Refused before the core sees it: a recording holds only inputs the core took.
    const error = pinError(rendition, this.opts.renditions);
    if (error) throw new RequestError('bad_request', error);
    this.control.step({ kind: 'pin-rendition', atMs: Date.now(), rendition });
    this.opts.log.info({ viewer: this.id, rendition }, 'viewer rendition choice');
  }

  /**
   * The stream's sound on this viewer's transport, after the video (consume):
   * marked as green and counted in the viewer's rate. A separate request, so
   * a receiver that wants video only never gets it.
   */
  async consumeAudio(rtpCapabilities: RtpCapabilitiesData): Promise<ResponseData['consumeAudio']> {
    const t = this.requireTransport();
    if (!this.retransmitted) throw new RequestError('invalid_state', 'consume the video first');
    if (this.audio) throw new RequestError('invalid_state', 'already consuming the sound');
    const { producer, timestampBase } = this.opts.audio;
    if (!producer || producer.closed) throw new RequestError('unavailable', 'the stream has no sound producer now, try again');
    const caps = withoutCongestionControl(rtpCapabilities as ms.RtpCapabilities);
    if (!this.opts.router.canConsume({ producerId: producer.id, rtpCapabilities: caps })) throw new RequestError('bad_request', 'the player cannot receive Opus');
    let consumer: ms.Consumer;
    try {
      consumer = await this.opts.requests.timed('consumeAudio', () => t.consume({ producerId: producer.id, rtpCapabilities: caps, paused: !this.sending, appData: { audio: true } }));
    } catch (err) {
      if (err instanceof TypeError) throw new RequestError('bad_request', `cannot consume: ${err.message}`);
      throw err;
    }
    if (this.closed) {
      consumer.close();
      throw new ClosedError('viewer');
    }
    const stats = new AudioStats(consumer, (kbps, atMs) => {
      if (!this.closed) this.control.step({ kind: 'audio-rate', atMs, kbps });
    });
    this.audio = { consumer, stats };
    stats.start();
    await this.markDscp();
    return { consumer: { id: consumer.id, producerId: producer.id, kind: 'audio', rtpParameters: consumer.rtpParameters }, timestampBase, clockRate: AUDIO_CLOCK_RATE };
  }

  /** The player says whether its media comes through a TURN relay; a relayed viewer is served best effort. */
  async reportTransport(relay: boolean): Promise<void> {
    this.assertOpen();
    this.relayed = relay;
    await this.applyMode();
  }

  /** How the media reaches the viewer, null until ICE has chosen. */
  get transport(): MediaTransport | null {
    return mediaTransport(this.tupleProtocol, this.relayed);
  }

  /** The player's own account of what it displayed (monitoring only). */
  reportQuality(report: QualityReport): void {
    if (!this.closed) this.displayReport = report;
  }

  /** The consumers' receiver-report statistics, polled: they step the control core, which may change the color streams UPTA lets out. */
  private onReports(input: ReceiverReportsInput): void {
    const { state, colors } = this.control.step(input);
    // The pacing rate's target: what the control lets the flow send, or what it sent when more (the base layer is always sent; rlm sends every layer).
    this.paced.setTargetKbps(Math.max(state.rateKbps, this.stats.sentKbps));
    const upta = this.control.uptaStatus;
    if (colors && upta) {
      this.opts.log.info({ viewer: this.id, upta: upta.state, reason: upta.reason }, 'viewer UPTA state changed');
      if (this.sending) void this.applyColors();
    }
    // A fresh diagnosis is a new state object, under either feedback (feedbackSteps counts only the steps of the kind that steps).
    if (state.congestion !== this.diagnosed) this.onRepairStep(state);
  }

  /** A router agent's feedback for this viewer's path (the control core acts on it when FEEDBACK=router). */
  onRouterFeedback(input: RouterFeedbackInput): void {
    if (!this.closed) this.control.step(input);
  }

  /** Each rendition's measured base-layer and full rates, for choosing among them (null while unknown). */
  setRenditionRates(baseKbps: readonly (number | null)[], fullKbps: readonly (number | null)[]): void {
    if (!this.closed) this.control.step({ kind: 'rendition-rates', atMs: Date.now(), baseKbps, fullKbps });
  }

  /** The stream's measured base rate (floor) and full rate (ceiling) for the rate controller. */
  setRateBounds(minKbps: number, maxKbps: number, nowMs: number): void {
    if (!this.closed) this.control.step({ kind: 'rate-bounds', atMs: nowMs, minKbps, maxKbps });
  }

  state(): ViewerState {
    const c = this.flow.counters;
    const control = this.control.state;
    return {
      id: this.id,
      streamId: this.opts.streamId,
      mode: this.mode,
      controller: control.controller,
      transport: this.transport,
      connectedAt: new Date(this.connectedAt).toISOString(),
      colors: this.subscribedColors,
      rateKbps: control.rateKbps,
      gamma: control.gamma,
      lossP: control.lossP,
      congestion: control.congestion,
      feedbackSteps: control.feedbackSteps,
      rttMs: control.rttMs,
      ssrcs: this.wireSsrcs(),
      perColor: control.perColor,
      framesSent: { tid0: c.framesByLayer[0], tid1: c.framesByLayer[1], tid2: c.framesByLayer[2] },
      framesSkipped: c.framesSkipped,
      sentKbps: this.stats.sentKbps,
      dscp: this.opts.dscp.status,
      psnrDb: this.displayReport?.psnrMeanDb ?? null,
      display: this.displayReport
        ? { freezes: this.displayReport.freezes, checksumMismatches: this.displayReport.checksumMismatches, fps: this.displayReport.fps, latencyMs: this.displayReport.latencyMs ?? null }
        : null,
      rtx: this.stats.rtx({
        ssrcs: this.rtxSsrcs(),
        repaired: this.gate?.passing ?? [...(this.retransmitted ?? [])],
        repairUnavailable: flowMode(this.mode).retransmission === 'repair' ? this.repairUnavailable : null,
      }),
      keyframeRequests: this.stats.keyframeRequests(),
      pacing: this.paced.snapshot,
      rendition: this.control.renditionState(Date.now()),
      upta: this.control.uptaStatus,
      audio: this.audio?.stats.state ?? null,
    };
  }

  async resume(): Promise<void> {
    this.assertOpen();
    if (!this.consumers.size) throw new RequestError('invalid_state', 'consume first');
    await this.applyColors();
    await this.audio?.consumer.resume();
    this.sending = true;
    // The green consumer starts at a keyframe: ask for one rather than wait for the periodic one.
    this.awaitingKeyframe = true;
    this.opts.onKeyframeRequest('join', this.control.keyframeRendition);
  }

  async setColors(colors: readonly Color[]): Promise<Color[]> {
    this.assertOpen();
    this.colors = new Set<Color>(['green', ...colors]);
    if (this.sending) await this.applyColors();
    return this.subscribedColors;
  }

  /**
   * Switches the mode (an operator action): the control core takes the new
   * mode's policy on the same control loop, so rate and gamma go on, and the DSCP marks change
   * to match. Retransmission stays as consumed: after consume a switch to or from
   * `nack` is refused. Resolves once the new marks are in place.
   */
  async setMode(mode: FlowModeName): Promise<void> {
    this.assertOpen();
    const { transport } = this;
    if (flowMode(mode).marksColors && !canColor(transport)) {
      throw new RequestError('invalid_state', `viewer ${this.id} receives over ${transport}: its packets cannot carry colors, so it is served best effort`);
    }
    const refusal = modeSwitchRefusal(this.mode, mode, this.retransmitted, this.gate !== null);
    if (refusal) throw new RequestError('invalid_state', refusal);
    this.requestedMode = mode;
    await this.applyMode();
  }

  /** Another rate controller for this viewer from now on (an operator action); it starts at the current rate. */
  setController(controller: RateControllerName): void {
    this.assertOpen();
    this.control.step({ kind: 'controller', atMs: Date.now(), controller });
    this.opts.log.info({ viewer: this.id, controller }, 'viewer rate controller changed');
  }

  /** Puts the mode in force for the current path: the control core's policy, and the DSCP marks to match. */
  private async applyMode(): Promise<void> {
    const mode = modeInForce(this.requestedMode, this.transport);
    if (this.closed || mode === this.mode) return;
    this.mode = mode;
    this.control.step({ kind: 'mode', atMs: Date.now(), mode });
    const { transport } = this;
    if (mode === this.requestedMode) this.opts.log.info({ viewer: this.id, mode, transport }, 'viewer mode changed');
    else this.opts.log.info({ viewer: this.id, mode, transport }, `viewer receives over ${transport}: served best effort, its packets cannot carry colors`);
    // A mode starts with repair closed: PELS opens it on the loss it sees from now on.
    this.repair = INITIAL_REPAIR;
    // Before consume() there are no wire SSRCs yet: consume() marks with the mode then in force.
    if (this.consumers.size) await Promise.all([this.markDscp(), this.applyGate()]);
  }

  /** Sends one source frame to this viewer (`frames` by rendition): the rendition and color its control core decides. */
  sendFrame(frames: readonly LayeredFrame[], nowMs: number): void {
    if (!this.sending || this.closed) return;
    const { decision, keyframeRequest } = this.control.step({ kind: 'frames', atMs: nowMs, frames });
    if (keyframeRequest !== null) this.opts.onKeyframeRequest('switch', keyframeRequest);
    const frame = frames[decision!.rendition];
    if (!frame || !decision!.frame) return;
    const out = this.flow.onFrame(frame, decision!.frame);
    if (!out) return;
    this.paced.send(out.color, out.packets);
    if (out.color === 'green' && frame.keyframe) this.awaitingKeyframe = false;
  }

  /** `rejoin: false` tells the player not to come back by itself (an operator's decision). */
  close(reason = 'closed', { rejoin = true }: { rejoin?: boolean } = {}): void {
    if (this.closed) return;
    this.closed = true;
    this.sending = false;
    clearTimeout(this.dtlsDeadline);
    this.stats.stop();
    this.paced.close();
    this.audio?.stats.stop();
    void this.control.close();
    void this.marking?.remove();
    this.gate?.close();
    // Closing the transports closes their producers and consumers.
    this.webRtcTransport?.close();
    this.direct?.close();
    this.opts.log.info({ viewer: this.id, reason }, 'viewer closed');
    this.opts.onClose({ reason, rejoin });
  }

  /** Each color's consumer sends when the viewer subscribes to it and UPTA lets it go out. */
  private async applyColors(): Promise<void> {
    for (const [color, consumer] of this.consumers) {
      const wanted = this.colors.has(color) && this.control.allows(color);
      if (wanted && consumer.paused) {
        await this.opts.requests.timed('resume', () => consumer.resume());
        // The resumed consumer waits for a keyframe: open its gate now (green's after UPTA paused it: a real one, as at a join).
        if (color !== 'green') this.sendSyntheticKeyframe(color, true);
        else if (this.sending) {
          this.awaitingKeyframe = true;
          this.opts.onKeyframeRequest('join', this.control.keyframeRendition);
        }
      } else if (!wanted && !consumer.paused) {
        await this.opts.requests.timed('pause', () => consumer.pause());
      }
    }
  }

  /** SSRCs of the streams as the viewer receives them (the consumers'), 0 before consume. */
  private wireSsrcs(): Record<Color, number> {
    const ssrc = (k: Color) => this.encodings.get(k)?.ssrc ?? 0;
    return { green: ssrc('green'), yellow: ssrc('yellow'), red: ssrc('red') };
  }

  /** RTX SSRC of each retransmitted color stream (the consumers'). */
  private rtxSsrcs(): Partial<Record<Color, number>> {
    const out: Partial<Record<Color, number>> = {};
    for (const [k, e] of this.encodings) {
      const rtx = e.rtx?.ssrc;
      if (rtx) out[k] = rtx;
    }
    return out;
  }

  /** At a fresh diagnosis (a report step): the colors PELS repairs now, and the gate to match. */
  private onRepairStep(state: ControlSnapshot): void {
    this.diagnosed = state.congestion;
    if (flowMode(this.mode).retransmission !== 'repair' || !this.gate) return;
    const before = this.repair.repaired;
    this.repair = nextRepair(this.repair, { congestion: state.congestion, rateKbps: state.rateKbps, sentKbps: this.stats.sentKbpsByColor });
    if (this.repair.repaired.join() === before.join()) return;
    const { diagnosis, wireLoss } = state.congestion;
    this.opts.log.info({ viewer: this.id, repaired: this.repair.repaired, diagnosis, wireLoss, rateKbps: state.rateKbps, sentKbps: this.stats.sentKbps }, 'viewer repair changed');
    void this.applyGate();
  }

  /** Lets through the retransmissions the mode and the repair policy want, drops the others'. */
  private async applyGate(): Promise<void> {
    if (this.gate && this.retransmitted) await this.gate.open(passingColors(this.mode, this.retransmitted, this.repair.repaired));
  }

  /**
   * Each color's media and RTX streams carry the mode's DSCP for that color (a retransmission is as important as its original).
   * The sound is green's (AF41 under PELS): the most protected class the PELS router has, and it fits there since the rate counts it.
   */
  private async markDscp(): Promise<void> {
    const ssrcs = this.wireSsrcs();
    const rtx = this.rtxSsrcs();
    const rules = COLORS.flatMap((k) => [{ ssrc: ssrcs[k], dscp: dscpFor(this.mode, k) }, ...(rtx[k] ? [{ ssrc: rtx[k], dscp: rtxDscpFor(this.mode, k) }] : [])]);
    const audioSsrc = this.audio?.consumer.rtpParameters.encodings?.[0]?.ssrc;
    if (audioSsrc) rules.push({ ssrc: audioSsrc, dscp: dscpFor(this.mode, 'green') });
    const marking = await this.opts.dscp.mark(rules);
    if (this.closed) return void marking.remove();
    // A mode switch: the newer marking wins at once (one atomic change of the SSRCs' elements), so no packet goes unmarked;
    // removing the old one then changes nothing in the kernel.
    const previous = this.marking;
    this.marking = marking;
    await previous?.remove();
  }

  private onRtcp(buf: Buffer): void {
    for (const fb of parseRtcpFeedback(buf)) {
      if (fb.type !== 'pli' && fb.type !== 'fir') continue;
      const color = COLORS.find((c) => this.flow.ssrcs[c] === fb.mediaSsrc);
      // Green: the player's base chain is broken, the stream's encoder makes a keyframe (a join's request already asked for one).
      if (color === 'green') {
        if (this.sending && !this.awaitingKeyframe) this.opts.onKeyframeRequest('pli', this.control.keyframeRendition);
      } else if (color) this.sendSyntheticKeyframe(color, false);
    }
  }

  private sendSyntheticKeyframe(color: Color, force: boolean): void {
    if (this.closed) return;
    const now = Date.now();
    if (!force && now - this.lastSynthetic[color] < SYNTHETIC_KEYFRAME_MIN_GAP_MS) return;
    this.lastSynthetic[color] = now;
    this.paced.send(color, this.flow.syntheticKeyframe(color));
  }

  private requireTransport(): ms.WebRtcTransport {
    this.assertOpen();
    if (!this.webRtcTransport) throw new RequestError('invalid_state', 'create a transport first');
    return this.webRtcTransport;
  }

  private assertOpen(): void {
    if (this.closed) throw new ClosedError('viewer');
  }
}

/** The color streams' producers as their packets reach them from node. */
function packetSinks(producers: Record<Color, ms.Producer>, sinks: PacketSinks): Record<Color, PacketSink> {
  return Object.fromEntries(COLORS.map((k) => [k, sinks.sink(producers[k], k)])) as Record<Color, PacketSink>;
}

/**
 * PELS sets each viewer's rate itself (MKC). Without transport-cc and REMB the
 * player gives mediasoup no bandwidth estimate, so mediasoup sends no
 * bandwidth probes: unmarked padding that would compete at the bottleneck.
 */
function withoutCongestionControl(caps: ms.RtpCapabilities): ms.RtpCapabilities {
  return {
    ...caps,
    codecs: caps.codecs?.map((c) => ({ ...c, rtcpFeedback: c.rtcpFeedback?.filter((f) => f.type !== 'transport-cc' && f.type !== 'goog-remb') })),
    headerExtensions: caps.headerExtensions?.filter((h) => !/transport-wide-cc|abs-send-time/.test(h.uri)),
  };
}
