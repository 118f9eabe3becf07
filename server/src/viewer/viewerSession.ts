import { randomInt } from 'node:crypto';
import type { types as ms } from 'mediasoup';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { ReceiverReportsInput, BottleneckFeedbackInput } from '@pels/shared/control/input';
import type { RateControllerName } from '@pels/shared/rate/names';
import type { FlowModeName, MediaTransport, ViewerState } from '@pels/shared/protocol/api';
import type { ConsumerParams, DtlsParametersData, RenditionChoice, Request, ResponseData, RtpCapabilitiesData, TransportParams } from '@pels/shared/protocol/signaling';
import { pinError } from '@pels/shared/control/renditionSwitch';
import { streamContext } from '@pels/shared/control/streamContext';
import { ClosedError, RequestError } from '../errors';
import { ViewerFlow } from '../flow/viewerFlow';
import { PacedSender } from '../flow/pacedSender';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { PacketSink, PacketSinks } from '../sfu/packetSink';
import { AUDIO_CLOCK_RATE } from '../sfu/mediaWorker';
import { PAYLOAD_TYPE, produceColorStreams } from './colorStreams';
import { canColor, ViewerPath } from './mediaPath';
import { flowMode } from '@pels/shared/control/flowMode';
import { modeSwitchRefusal } from './colorStreamRules';
import { DscpMarks, type WireSsrcs } from './dscpMarks';
import { ViewerControl } from './viewerControl';
import { ViewerKeyframes } from './viewerKeyframes';
import { ViewerRepair } from './viewerRepair';
import { ViewerStats } from './viewerStats';
import { AudioStats } from './audioStats';
import type { ViewerSessionOptions } from './viewerSessionOptions';

type QualityReport = Extract<Request, { method: 'reportQuality' }>['data'];

/**
 * One viewer of one stream, as mediasoup carries it: three producers (green,
 * yellow, red) on a DirectTransport fed by this viewer's flow, and their
 * consumers (and the sound's) on the viewer's WebRtcTransport. What to send is
 * the control core's (ViewerControl); the viewer's path and mode (ViewerPath),
 * retransmissions (ViewerRepair), keyframes (ViewerKeyframes) and DSCP marks
 * (DscpMarks) are their own modules' jobs. Closing it closes everything it made.
 */
export class ViewerSession {
  readonly id: string;
  readonly connectedAt = Date.now();
  private closed = false;
  private sending = false;
  private webRtcTransport: ms.WebRtcTransport | null = null;
  private readonly consumers = new Map<Color, ms.Consumer>();
  /** The sound, once the player asks for it (consumeAudio), and its counters. */
  private audio: { consumer: ms.Consumer; stats: AudioStats } | null = null;
  /** Each consumer's encoding (its SSRCs), read once: mediasoup copies a consumer's RTP parameters at every read. */
  private readonly encodings = new Map<Color, ms.RtpEncodingParameters>();
  private colors = new Set<Color>(COLORS);
  private displayReport: QualityReport | null = null;
  /** The consumers' and transport's stats, polled once consuming: RTCP counters for the control core, repair counters, sent rate. */
  private readonly stats: ViewerStats;
  private readonly path: ViewerPath;
  private readonly repair: ViewerRepair;
  private readonly keyframes: ViewerKeyframes;
  private readonly marks: DscpMarks;
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
    const { server, stream, worker } = opts;
    this.paced = new PacedSender(direct ? packetSinks(producers, worker.packetSinks) : producers, stream.pacerClock);
    this.paced.setTargetKbps(control.state.rateKbps);
    this.stats = new ViewerStats({
      consumers: this.consumers,
      transport: () => this.webRtcTransport,
      sentBytes: () => ({ green: flow.counters.byColor.green.bytes, yellow: flow.counters.byColor.yellow.bytes, red: flow.counters.byColor.red.bytes }),
      onReports: (input) => this.onReports(input),
      awaitingReports: () => control.awaitingReports,
      onTick: (atMs) => control.step({ kind: 'tick', atMs }),
      requests: worker.requests,
    });
    this.path = new ViewerPath(opts.mode);
    this.repair = new ViewerRepair({ viewerId: this.id, dscp: server.dscp, log: server.log }, control.state.congestion);
    this.keyframes = new ViewerKeyframes({
      ssrcs: flow.ssrcs,
      request: (reason) => stream.onKeyframeRequest(reason, control.keyframeRendition),
      sendSynthetic: (color) => this.paced.send(color, flow.syntheticKeyframe(color)),
      sending: () => this.sending,
      connected: () => this.webRtcTransport?.dtlsState === 'connected',
      closed: () => this.closed,
    });
    this.marks = new DscpMarks(server.dscp, () => this.closed);
    direct?.on('rtcp', (buf) => this.keyframes.onRtcp(buf));
    direct?.on('routerclose', () => this.close('media router closed'));
    const { dtlsTimeoutMs } = server.limits.settings;
    this.dtlsDeadline = setTimeout(() => {
      server.limits.rejections.add('dtls_timeout');
      this.close(`DTLS not connected within ${dtlsTimeoutMs / 1000} s`);
    }, dtlsTimeoutMs);
  }

  static async create(opts: ViewerSessionOptions): Promise<ViewerSession> {
    const { stream, worker } = opts;
    const control = new ViewerControl({
      params: {
        origin: opts.id,
        control: opts.control.loop,
        feedback: opts.control.feedback,
        mode: opts.mode,
        startMs: Date.now(),
        seed: randomInt(0, 2 ** 32),
        renditions: { count: stream.renditions, policy: stream.renditionPolicy },
        ...(stream.upta ? { upta: stream.upta.params } : {}),
      },
      context: streamContext({ board: stream.probeBoard, ...(stream.upta ? { model: stream.upta.model } : {}) }),
      ...(opts.control.recordDir !== undefined ? { recordDir: opts.control.recordDir } : {}),
      streamId: stream.id,
      log: opts.server.log,
    });
    // A shared fan-out's flow sends every frame to everyone: this viewer's control is measured, not obeyed.
    const shared = stream.fanout;
    if (shared) return new ViewerSession(opts, null, shared.producers, control, shared.flow, shared.timestampBase);
    const direct = await worker.requests.timed('createDirectTransport', () => worker.router.createDirectTransport());
    try {
      const { producers, ssrcs } = await worker.requests.timed('produce', () => produceColorStreams(direct, `pels-${opts.id}`));
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
    const { worker } = this.opts;
    // TCP candidates too, for networks that block UDP; ICE prefers UDP where both work.
    const t = await worker.requests.timed('createWebRtcTransport', () =>
      worker.router.createWebRtcTransport({ webRtcServer: worker.webRtcServer, enableUdp: true, enableTcp: true, preferUdp: true }),
    );
    if (this.closed) {
      t.close();
      throw new ClosedError('viewer');
    }
    this.webRtcTransport = t;
    t.on('dtlsstatechange', (state) => {
      if (state === 'connected') {
        clearTimeout(this.dtlsDeadline);
        this.keyframes.transportConnected();
      }
      if (state === 'failed' || state === 'closed') this.close(`DTLS ${state}`);
    });
    t.on('icestatechange', (state) => {
      if (state === 'disconnected') this.opts.server.log.warn({ viewer: this.id }, 'ICE disconnected');
    });
    t.on('iceselectedtuplechange', (tuple) => {
      this.path.setTuple(tuple.protocol);
      void this.applyMode();
    });
    return { id: t.id, iceParameters: t.iceParameters, iceCandidates: t.iceCandidates, dtlsParameters: t.dtlsParameters };
  }

  async connectTransport(dtlsParameters: DtlsParametersData): Promise<void> {
    const t = this.requireTransport();
    try {
      // The shape was checked at the edge; mediasoup checks the values (e.g. the fingerprint algorithm).
      await this.opts.worker.requests.timed('connectTransport', () => t.connect({ dtlsParameters: dtlsParameters as ms.DtlsParameters }));
    } catch (err) {
      throw new RequestError('bad_request', `cannot connect transport: ${(err as Error).message}`);
    }
  }

  async consume(rtpCapabilities: RtpCapabilitiesData): Promise<ConsumerParams[]> {
    const t = this.requireTransport();
    if (this.repair.retransmitted) throw new RequestError('invalid_state', 'already consuming');
    const { worker } = this.opts;
    const caps = withoutCongestionControl(rtpCapabilities as ms.RtpCapabilities);
    // Fixed from here on, even while the consumers are being made (see modeSwitchRefusal).
    if (COLORS.some((color) => !worker.router.canConsume({ producerId: this.producers[color].id, rtpCapabilities: caps }))) {
      throw new RequestError('bad_request', 'the player cannot receive VP8');
    }
    const retransmitted = this.repair.begin(this.path.mode);
    const out: ConsumerParams[] = [];
    try {
      // The three at once: one wait on the worker's channel, not three in turn (a join's time under load).
      const made = await Promise.allSettled(
        COLORS.map((color) => {
          // Paused until the player has attached its frame transforms.
          const enableRtx = retransmitted.includes(color);
          return worker.requests.timed('consume', () => t.consume({ producerId: this.producers[color].id, rtpCapabilities: caps, paused: true, enableRtx, appData: { color } }));
        }),
      );
      made.forEach((m, i) => {
        if (m.status === 'fulfilled') this.consumers.set(COLORS[i]!, m.value);
      });
      const failed = made.find((m) => m.status === 'rejected');
      if (failed) throw failed.reason;
      // Closed meanwhile (the player left): mediasoup still made the consumers, on a transport already closed, so nothing else would close them.
      this.assertOpen();
      for (const [color, consumer] of this.consumers) {
        this.encodings.set(color, consumer.rtpParameters.encodings?.[0] ?? {});
        out.push({ id: consumer.id, producerId: this.producers[color].id, kind: 'video', rtpParameters: consumer.rtpParameters, color });
      }
    } catch (err) {
      // All three or none: a half-made set would leave the viewer unable to try again.
      for (const c of this.consumers.values()) c.close();
      this.consumers.clear();
      this.encodings.clear();
      this.repair.abort();
      // mediasoup rejects values it cannot use with a TypeError: the player's mistake, not the server's.
      if (err instanceof TypeError) throw new RequestError('bad_request', `cannot consume: ${err.message}`);
      throw err;
    }
    this.repair.consumedWith(this.path.mode, this.rtxSsrcs());
    // In the same tick, so one nft transaction: the gate is closed from the first packet on.
    await Promise.all([this.markDscp(), this.repair.apply(this.path.mode)]);
    this.stats.start();
    return out;
  }

  /** The player's quality menu: one rendition held whatever the rate (from its next keyframe), or 'auto'. */
  pinRendition(rendition: RenditionChoice): void {
    this.assertOpen();
    if (this.opts.stream.fanout) throw new RequestError('invalid_state', 'with a shared fan-out every viewer gets the full size');
    // Refused before the core sees it: a recording holds only inputs the core took.
    const error = pinError(rendition, this.opts.stream.renditions);
    if (error) throw new RequestError('bad_request', error);
    this.control.step({ kind: 'pin-rendition', atMs: Date.now(), rendition });
    this.opts.server.log.info({ viewer: this.id, rendition }, 'viewer rendition choice');
  }

  /**
   * The stream's sound on this viewer's transport, after the video (consume):
   * marked as green and counted in the viewer's rate. A separate request, so
   * a receiver that wants video only never gets it.
   */
  async consumeAudio(rtpCapabilities: RtpCapabilitiesData): Promise<ResponseData['consumeAudio']> {
    const t = this.requireTransport();
    if (!this.repair.retransmitted) throw new RequestError('invalid_state', 'consume the video first');
    if (this.audio) throw new RequestError('invalid_state', 'already consuming the sound');
    const { producer, timestampBase } = this.opts.stream.audio;
    if (!producer || producer.closed) throw new RequestError('unavailable', 'the stream has no sound producer now, try again');
    const caps = withoutCongestionControl(rtpCapabilities as ms.RtpCapabilities);
    if (!this.opts.worker.router.canConsume({ producerId: producer.id, rtpCapabilities: caps })) throw new RequestError('bad_request', 'the player cannot receive Opus');
    let consumer: ms.Consumer;
    try {
      consumer = await this.opts.worker.requests.timed('consumeAudio', () => t.consume({ producerId: producer.id, rtpCapabilities: caps, paused: !this.sending, appData: { audio: true } }));
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
    this.path.setRelayed(relay);
    await this.applyMode();
  }

  /** How the media reaches the viewer, null until ICE has chosen. */
  get transport(): MediaTransport | null {
    return this.path.transport;
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
      this.opts.server.log.info({ viewer: this.id, upta: upta.state, reason: upta.reason }, 'viewer UPTA state changed');
      if (this.sending) void this.applyColors();
    }
    this.repair.onControlState(state, this.path.mode, this.stats);
  }

  /** A router agent's feedback for this viewer's path (the control core acts on it when FEEDBACK=router). */
  onRouterFeedback(input: BottleneckFeedbackInput): void {
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
    const mode = this.path.mode;
    return {
      id: this.id,
      streamId: this.opts.stream.id,
      mode,
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
      dscp: this.opts.server.dscp.status,
      psnrDb: this.displayReport?.psnrMeanDb ?? null,
      display: this.displayReport
        ? { freezes: this.displayReport.freezes, checksumMismatches: this.displayReport.checksumMismatches, fps: this.displayReport.fps, latencyMs: this.displayReport.latencyMs ?? null }
        : null,
      rtx: this.stats.rtx({ ssrcs: this.rtxSsrcs(), ...this.repair.status(mode) }),
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
    this.keyframes.join();
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
    const refusal = modeSwitchRefusal(this.path.mode, mode, this.repair.retransmitted, this.repair.gated);
    if (refusal) throw new RequestError('invalid_state', refusal);
    this.path.requested = mode;
    await this.applyMode();
  }

  /** Another rate controller for this viewer from now on (an operator action); it starts at the current rate. */
  setController(controller: RateControllerName): void {
    this.assertOpen();
    this.control.step({ kind: 'controller', atMs: Date.now(), controller });
    this.opts.server.log.info({ viewer: this.id, controller }, 'viewer rate controller changed');
  }

  /** Puts the mode in force for the current path: the control core's policy, and the DSCP marks to match. */
  private async applyMode(): Promise<void> {
    if (this.closed) return;
    const mode = this.path.update();
    if (mode === null) return;
    this.control.step({ kind: 'mode', atMs: Date.now(), mode });
    const { transport } = this;
    const { log } = this.opts.server;
    if (mode === this.path.requested) log.info({ viewer: this.id, mode, transport }, 'viewer mode changed');
    else log.info({ viewer: this.id, mode, transport }, `viewer receives over ${transport}: served best effort, its packets cannot carry colors`);
    this.repair.resetForMode();
    // Before consume() there are no wire SSRCs yet: consume() marks with the mode then in force.
    if (this.consumers.size) await Promise.all([this.markDscp(), this.repair.apply(mode)]);
  }

  /** Sends one source frame to this viewer (`frames` by rendition): the rendition and color its control core decides. */
  sendFrame(frames: readonly LayeredFrame[], nowMs: number): void {
    if (!this.sending || this.closed) return;
    const { decision, keyframeRequest } = this.control.step({ kind: 'frames', atMs: nowMs, frames });
    if (keyframeRequest !== null) this.opts.stream.onKeyframeRequest('switch', keyframeRequest);
    const frame = frames[decision!.rendition];
    if (!frame || !decision!.frame) return;
    const out = this.flow.onFrame(frame, decision!.frame);
    if (!out) return;
    this.paced.send(out.color, out.packets);
    this.keyframes.sent(out.color, frame.keyframe);
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
    this.marks.remove();
    this.repair.close();
    // Closing the transports closes their producers and consumers.
    this.webRtcTransport?.close();
    this.direct?.close();
    this.opts.server.log.info({ viewer: this.id, reason }, 'viewer closed');
    this.opts.onClose({ reason, rejoin });
  }

  /** Each color's consumer sends when the viewer subscribes to it and UPTA lets it go out. */
  private async applyColors(): Promise<void> {
    for (const [color, consumer] of this.consumers) {
      const wanted = this.colors.has(color) && this.control.allows(color);
      if (wanted && consumer.paused) {
        await this.opts.worker.requests.timed('resume', () => consumer.resume());
        this.keyframes.resumed(color);
      } else if (!wanted && !consumer.paused) {
        await this.opts.worker.requests.timed('pause', () => consumer.pause());
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

  /** The marks of the mode in force on every SSRC the viewer's packets leave with. */
  private markDscp(): Promise<void> {
    const ssrcs: WireSsrcs = { media: this.wireSsrcs(), rtx: this.rtxSsrcs(), audio: this.audio?.consumer.rtpParameters.encodings?.[0]?.ssrc };
    return this.marks.mark(this.path.mode, ssrcs);
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
