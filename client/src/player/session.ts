/**
 * One viewing session: one signaling WebSocket, one stream, one receive transport with
 * three color consumers, one player worker. It ends on close() or on the first failure,
 * after which the owner starts a new one.
 *
 * Signaling order: join (with the stream list and the transport), (device.load), consume
 * (the three colors and the sound, with the colors wanted, the rendition and the resume),
 * (the local consumers in one negotiation, during which connectTransport).
 */
import { ClockOffset } from './clockOffset';
import { Device, type types } from 'mediasoup-client';
import { COLORS, type Color } from '@pels/shared/pels/color';
import { qualityBatchSchema, viewerStateUpdateSchema, type AudioConsume, type Notification, type RenditionChoice, type StreamInfo, type ViewerStateUpdate } from '@pels/shared/protocol/signaling';
import type { ColorBytes } from '../quality/coverage';
import { receivedBytes } from '../quality/receivedBytes';
import { SignalingClient } from '../signaling/signalingClient';
import { attachColorTransforms, msidStreamIdFor } from '../webrtc/colorTransforms';
import { createRecvTransportWithPeerConnection } from '../webrtc/recvTransportPeerConnection';
import { selectedCandidateType } from '../webrtc/selectedCandidate';
import { audioReceiveStats, bufferMsBetween, startAudioClock, type AudioReceiveStats } from './audioReceiver';
import { JoinPhases } from './joinPhases';
import { layerCounters } from './layerCounters';
import { networkStats } from './networkStats';
import { RlmDriver } from './rlmDriver';
import { SoundDelay } from './soundDelay';
import type { PlayerStats } from './stats';
import type { PageToWorker, QualityUpdate, WorkerToPage } from './workerProtocol';
import type { FlowModeName } from '@pels/shared/protocol/api';

const QUALITY_REPORT_MS = 2000;
/** How often receiver-driven layers read the loss counters: well inside RLM's detection time. */
const RLM_POLL_MS = 200;

export interface SessionOptions {
  /** Where to open the signaling: the placement's answer (a cluster's edge) or the page's own server. */
  signalingUrl: () => Promise<string>;
  /** The stream to join; the first one listed when undefined. */
  streamId: string | undefined;
  colors: Color[];
  /** The quality menu's choice, sent with consume when it is not 'auto' (the server's default). */
  rendition: RenditionChoice;
  playoutDeadlineMs: number;
  mode: FlowModeName;
  /** The rate controller asked for (`?cc=`); the stream's when undefined. */
  controller: string | undefined;
}

export interface SessionEvents {
  streams(streams: StreamInfo[]): void;
  joined(viewerId: string, stream: StreamInfo): void;
  streamState(stream: StreamInfo): void;
  transportState(state: types.ConnectionState): void;
  stats(stats: PlayerStats): void;
  /** What the display showed and how it scored, about 4 times a second. */
  quality(update: QualityUpdate): void;
  /** The server's state of this viewer (rate, gamma, per-color loss), once a second. */
  viewerState(state: ViewerStateUpdate): void;
  /** The colors receiver-driven layers chose (`rlm` mode only). */
  colors(colors: Color[]): void;
  /** Payload bytes received per color since the start (WebRTC stats), once a second. */
  receivedBytes(bytes: ColorBytes): void;
  playing(stats: PlayerStats): void;
  /** Where the join's time went (JoinPhases), once the first frame is decoded. */
  joinPhases(ms: Record<string, number>): void;
  /** A problem that does not end the session. */
  warning(message: string): void;
  /** The stream's sound track, once consumed (it may carry nothing: StreamInfo.audio says whether the stream has sound). */
  audioTrack(track: MediaStreamTrack): void;
  /**
   * The session has failed and is closed. `rejoin` is false when the server ended it
   * for good (an operator's disconnect): only the user may start another. `serverLost`: its
   * signaling socket closed or could not be opened, or the server said to move (it drains):
   * the next session goes elsewhere at once.
   */
  failed(message: string, rejoin: boolean, serverLost: boolean): void;
}

const TRANSPORT_STATS_INTERVAL_MS = 1000;

/** The clock round trips: a burst of this many at the start, this far apart, then one at this interval. */
const CLOCK_BURST = 5;
const CLOCK_BURST_GAP_MS = 300;
const CLOCK_INTERVAL_MS = 10_000;

/** Thrown inside run() when close() was called during an await. */
class SessionClosed extends Error {}

/** Thrown inside run() when the server's signaling cannot be opened. */
class ServerLost extends Error {}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class PlayerSession {
  /** Where the worker draws; a fresh element per session, since control of a canvas transfers only once. */
  readonly canvas = document.createElement('canvas');
  private signaling: SignalingClient | undefined;
  private lastQualityReport = 0;
  private worker: Worker | undefined;
  private transport: types.Transport | undefined;
  private colors: Color[];
  private rendition: RenditionChoice;
  private statsTimer: ReturnType<typeof setTimeout> | undefined;
  /** Signaling round trips for the server's clock offset (the live latency's), and when the next one goes. */
  private readonly clock = new ClockOffset();
  private clockTimer: ReturnType<typeof setTimeout> | undefined;
  private rlmTimer: ReturnType<typeof setInterval> | undefined;
  /** The colors whose retransmissions the server lets through now (its viewer state says); null before it has said. */
  private repaired: Color[] | null = null;
  /** What the server was last told about a TURN relay (it assumes none). */
  private relayReported = false;
  private joined = false;
  /** Consume is asked for (with the rendition then chosen): a later choice goes in a request of its own. */
  private consumeSent = false;
  private closed = false;
  /** Stops sending the sound's playout position to the worker. */
  private stopAudioClock: (() => void) | undefined;
  /** The sound as received, from the last transport stats poll. */
  private audioStats: AudioReceiveStats | null = null;
  /** The sound's receiver, held back for the picture when frames are ready after their sound (soundDelay.ts). */
  private audioReceiver: RTCRtpReceiver | undefined;
  private readonly soundDelay = new SoundDelay();
  /** The worker's readings of how far the sound runs ahead of the frames since the last transport stats. */
  private soundLeads: number[] = [];
  /** The sound's sample rate (its RTP clock), for the receiver's playout rate. */
  private audioClockRate = 48000;
  private readonly phases = new JoinPhases(() => performance.now());

  constructor(
    private readonly options: SessionOptions,
    private readonly events: SessionEvents,
  ) {
    // Receiver-driven layers start from the base layer and join the others by experiment.
    this.colors = options.mode === 'rlm' ? ['green'] : options.colors;
    this.rendition = options.rendition;
  }

  async start(): Promise<void> {
    try {
      await this.run();
    } catch (err) {
      if (!(err instanceof SessionClosed)) this.fail(describe(err), true, err instanceof ServerLost);
    }
  }

  /** Asks the server for these colors now if joined, else when joining. */
  async setColors(colors: Color[]): Promise<void> {
    this.colors = colors;
    if (this.joined && this.signaling) await this.signaling.request('setColors', { colors });
  }

  /** Pins a rendition (or 'auto'): in a request of its own once consume was asked for, else with consume. */
  async setRendition(rendition: RenditionChoice): Promise<void> {
    this.rendition = rendition;
    if (this.consumeSent && this.signaling) await this.signaling.request('setRendition', { rendition });
  }

  /** Idempotent. Tells the server we leave, closes the transport, stops the worker. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Sent before the socket closes; the answer no longer matters.
    if (this.joined) this.signaling?.request('leave', {}).catch(() => undefined);
    clearTimeout(this.statsTimer);
    clearTimeout(this.clockTimer);
    clearInterval(this.rlmTimer);
    this.stopAudioClock?.();
    this.transport?.close();
    this.worker?.terminate();
    this.signaling?.close();
  }

  private fail(message: string, rejoin = true, serverLost = false): void {
    if (this.closed) return;
    this.close();
    this.events.failed(message, rejoin, serverLost);
  }

  private checkOpen(): void {
    if (this.closed) throw new SessionClosed();
  }

  private async run(): Promise<void> {
    const url = await this.options.signalingUrl();
    this.checkOpen();
    this.phases.end('placement');
    const signaling = await SignalingClient.connect(url, {
      onNotification: (n) => this.onNotification(n),
      onClose: (reason) => this.fail(`server disconnected (${reason})`, true, true),
    }).catch((err: unknown) => {
      throw new ServerLost(describe(err));
    });
    if (this.closed) {
      signaling.close();
      return;
    }
    this.signaling = signaling;
    this.phases.end('connect');

    // One request for the stream list, the join and the transport (the server's first stream when none is asked for).
    const { streamId, mode, controller } = this.options;
    const joined = await signaling.request('join', { ...(streamId ? { streamId } : {}), mode, ...(controller ? { controller } : {}), transport: true });
    this.checkOpen();
    this.joined = true;
    this.phases.end('join');
    this.events.streams(joined.streams);
    this.events.joined(joined.viewerId, joined.stream);
    const params = joined.transport;
    if (!params) throw new Error('the server did not create a transport with the join');
    // Before any await: the server's quality notifications start now, and go to the worker.
    const worker = this.startWorker(joined.stream, joined.timestampBase);
    this.sampleClock(signaling, worker, 0);

    const device = await Device.factory();
    await device.load({ routerRtpCapabilities: joined.routerRtpCapabilities as types.RtpCapabilities });
    this.checkOpen();
    this.phases.end('device');

    const { transport, peerConnection } = createRecvTransportWithPeerConnection(device, {
      id: params.id,
      iceParameters: params.iceParameters as types.IceParameters,
      iceCandidates: params.iceCandidates as types.IceCandidate[],
      dtlsParameters: params.dtlsParameters as types.DtlsParameters,
      // The server's STUN/TURN servers: TURN is how a player behind a network that allows neither UDP nor the server's TCP port connects.
      iceServers: params.iceServers,
    });
    this.transport = transport;
    attachColorTransforms(peerConnection, worker);
    transport.on('connect', ({ dtlsParameters }, callback, errback) => {
      signaling.request('connectTransport', { dtlsParameters }).then(() => callback(), errback);
    });
    transport.on('connectionstatechange', (state) => {
      this.events.transportState(state);
      if (state === 'failed') this.fail('the media connection failed');
    });

    // The video, the sound, the colors, the rendition and the resume in one request. Resuming before the local
    // consumers exist is safe: nothing flows before DTLS, which needs the connectTransport that the local consumers'
    // negotiation sends after their tracks (and frame transforms) are in place; the server asks for the first keyframe then.
    // From here a rendition or color change goes in a request of its own, which the server takes after this one.
    this.consumeSent = true;
    const consumed = await signaling.request('consume', {
      rtpCapabilities: device.recvRtpCapabilities,
      audio: true,
      resume: true,
      ...(this.colors.length < COLORS.length ? { colors: this.colors } : {}),
      ...(this.rendition !== 'auto' ? { rendition: this.rendition } : {}),
    });
    this.checkOpen();
    this.phases.end('consume');
    // A choice the server refuses (e.g. a shared fan-out's viewer) leaves the video playing: the player says so.
    if (consumed.renditionRefused) this.events.warning(`The server did not change the quality: ${consumed.renditionRefused}`);
    const { consumers, audio } = consumed;
    if (!audio) throw new Error('the server did not consume the sound');
    // In one negotiation (mediasoup-client batches consumers asked for together): its connectTransport is the only round trip.
    const [local, audioConsumer] = await Promise.all([
      Promise.all(
        consumers.map((c) =>
          transport.consume({
            id: c.id,
            producerId: c.producerId,
            kind: c.kind,
            rtpParameters: c.rtpParameters as types.RtpParameters,
            // Lets the `track` event tell which color a receiver carries.
            streamId: msidStreamIdFor(c.color),
            appData: { color: c.color },
          }),
        ),
      ),
      transport.consume({ id: audio.consumer.id, producerId: audio.consumer.producerId, kind: 'audio', rtpParameters: audio.consumer.rtpParameters as types.RtpParameters, streamId: 'pels-audio' }),
    ]);
    this.checkOpen();
    this.phases.end('consumeLocal');
    // The server sets retransmission per consumer: an RTX stream in its parameters. Which of them it lets through
    // changes while playing (PELS repairs yellow and red on wire loss only): its viewer state says, once a second.
    const retransmitted = local.flatMap((c, i) => (c.rtpParameters.encodings?.[0]?.rtx ? [consumers[i]!.color] : []));
    const colorOfSsrc = new Map(local.map((c, i) => [c.rtpParameters.encodings?.[0]?.ssrc ?? 0, consumers[i]!.color]));
    this.pollTransportStats(transport, colorOfSsrc, retransmitted);
    this.playSound(audioConsumer, audio, worker);
    if (this.options.mode === 'rlm') this.runRlm(transport, colorOfSsrc);
  }

  /** The stream's sound: played by the page (the audioTrack event), its playout timing the worker's display clock. */
  private playSound(consumer: types.Consumer, audio: AudioConsume, worker: Worker): void {
    worker.postMessage({ type: 'audioTiming', timing: { timestampBase: audio.timestampBase, clockRate: audio.clockRate } } satisfies PageToWorker);
    this.audioClockRate = audio.clockRate;
    this.audioReceiver = consumer.rtpReceiver as RTCRtpReceiver;
    this.audioReceiver.jitterBufferTarget = this.soundDelay.receiverTargetMs;
    this.stopAudioClock = startAudioClock(this.audioReceiver, worker);
    this.events.audioTrack(consumer.track);
  }

  /** Receiver-driven layers: the RLM machine reads the per-color loss counters and sets the colors. */
  private runRlm(transport: types.Transport, colorOfSsrc: Map<number, Color>): void {
    const driver = new RlmDriver(performance.now(), Math.random, (colors) => {
      this.events.colors(colors);
      this.setColors(colors).catch(() => undefined); // the next change asks again
    });
    this.rlmTimer = setInterval(() => {
      transport.getStats().then(
        (report) => {
          if (!this.closed) driver.onCounters(layerCounters(report, colorOfSsrc), performance.now());
        },
        () => undefined, // the transport closed meanwhile
      );
    }, RLM_POLL_MS);
  }

  /**
   * The transport's one stats poll: bytes received per color for the utility; RTT and recovered packets for the worker;
   * the sound's receive counters and hold. One request at a time, the next a second after the answer: a busy
   * machine is not asked again before it has answered.
   */
  private pollTransportStats(transport: types.Transport, colorOfSsrc: Map<number, Color>, retransmitted: Color[]): void {
    this.statsTimer = setTimeout(() => {
      transport.getStats().then(
        (report) => {
          if (this.closed) return;
          this.events.receivedBytes(receivedBytes(report, colorOfSsrc));
          this.holdSound(audioReceiveStats(report));
          this.reportRelay(selectedCandidateType(report) === 'relay');
          this.worker?.postMessage({ type: 'network', ...networkStats(report), retransmitted: this.repaired ?? retransmitted } satisfies PageToWorker);
          this.pollTransportStats(transport, colorOfSsrc, retransmitted);
        },
        () => undefined, // the transport closed meanwhile
      );
    }, TRANSPORT_STATS_INTERVAL_MS);
  }

  /** Takes the sound's new receive stats, and holds the sound back by as much as the frames come after it. */
  private holdSound(stats: AudioReceiveStats | null): void {
    const before = this.audioStats;
    this.audioStats = stats;
    if (!stats || !this.audioReceiver) return;
    const leads = this.soundLeads.splice(0).sort((a, b) => a - b);
    const lead = leads.length ? leads[leads.length >> 1]! : null;
    const target = this.soundDelay.update(lead, bufferMsBetween(before, stats, this.audioClockRate));
    if (target !== null) this.audioReceiver.jitterBufferTarget = this.soundDelay.receiverTargetMs;
  }

  /** The server cannot tell a TURN relay from a direct UDP peer: the player says when its path changes. */
  private reportRelay(relay: boolean): void {
    if (relay === this.relayReported || !this.signaling) return;
    this.relayReported = relay;
    this.signaling.request('reportTransport', { relay }).catch(() => {
      this.relayReported = !relay; // told again on the next poll
    });
  }

  private startWorker(stream: StreamInfo, timestampBase: number): Worker {
    const worker = new Worker(new URL('./player.worker.ts', import.meta.url), { type: 'module', name: 'pels-player' });
    this.worker = worker;
    worker.addEventListener('message', (ev: MessageEvent<WorkerToPage>) => this.onWorkerMessage(ev.data));
    worker.addEventListener('error', (ev) => this.fail(`the player worker failed: ${ev.message || 'could not load'}`));
    // The stream's size until the first frame, so the page lays out the right shape at once.
    if (stream.width > 0 && stream.height > 0) [this.canvas.width, this.canvas.height] = [stream.width, stream.height];
    const canvas = this.canvas.transferControlToOffscreen();
    const init: PageToWorker = {
      type: 'init',
      canvas,
      ticksPerFrame: stream.ticksPerFrame,
      renditions: stream.renditions.map(({ width, height }) => ({ width, height })),
      playoutDeadlineMs: this.options.playoutDeadlineMs,
      timestampBase,
      indexHint: stream.framesIngested,
    };
    worker.postMessage(init, [canvas]);
    return worker;
  }

  /**
   * One signaling round trip for the server's clock; a burst at the start (the
   * shortest of them gives the offset), then one every CLOCK_INTERVAL_MS.
   */
  private sampleClock(signaling: SignalingClient, worker: Worker, n: number): void {
    if (this.closed) return;
    const sentMs = Date.now();
    signaling.request('clock', {}).then(
      ({ serverMs }) => {
        const before = this.clock.offsetMs;
        this.clock.add({ sentMs, receivedMs: Date.now(), serverMs });
        const offsetMs = this.clock.offsetMs;
        if (offsetMs !== null && offsetMs !== before && !this.closed) worker.postMessage({ type: 'clockOffset', offsetMs } satisfies PageToWorker);
      },
      () => undefined, // the next round trip tries again
    );
    this.clockTimer = setTimeout(() => this.sampleClock(signaling, worker, n + 1), n < CLOCK_BURST ? CLOCK_BURST_GAP_MS : CLOCK_INTERVAL_MS);
  }

  /** Tells the server what the display scored, every few seconds, for the operator's dashboard. */
  private reportQuality(stats: PlayerStats): void {
    const now = Date.now();
    if (!this.joined || !this.signaling || now - this.lastQualityReport < QUALITY_REPORT_MS) return;
    this.lastQualityReport = now;
    const latencyMs = stats.latencyMs ? { p50: stats.latencyMs.p50, p95: stats.latencyMs.p95 } : null;
    const report = { psnrMeanDb: stats.psnr.mean, freezes: stats.freezes, checksumMismatches: stats.checksumMismatches, fps: stats.fps.total, latencyMs };
    this.signaling.request('reportQuality', report).catch(() => undefined); // monitoring only: a lost report is harmless
  }

  private onWorkerMessage(message: WorkerToPage): void {
    if (this.closed) return;
    switch (message.type) {
      case 'stats': {
        if (message.soundLeadMs !== null) this.soundLeads.push(message.soundLeadMs);
        const stats = { ...message.stats, audio: this.audioStats, soundDelayMs: this.audioReceiver ? this.soundDelay.targetMs : null };
        this.events.stats(stats);
        this.reportQuality(stats);
        break;
      }
      case 'quality':
        this.events.quality(message.update);
        break;
      case 'playing':
        this.phases.end('firstFrame');
        this.events.joinPhases(this.phases.ms);
        this.events.playing(message.stats);
        break;
      case 'fatal':
        this.fail(message.message);
        break;
    }
  }

  private onNotification(n: Notification): void {
    if (this.closed) return;
    switch (n.notification) {
      case 'streamState':
        this.events.streamState(n.data);
        break;
      case 'viewerClosed':
        // A server that does not say lets the player rejoin, as before.
        this.fail(`the server closed this viewer: ${n.data.reason}`, n.data.rejoin !== false);
        break;
      case 'quality': {
        const batch = qualityBatchSchema.safeParse(n.data);
        if (batch.success) this.worker?.postMessage({ type: 'quality', frames: batch.data.frames } satisfies PageToWorker);
        else console.warn('signaling: invalid quality notification', batch.error.issues[0]);
        break;
      }
      case 'move':
        this.fail(`the server moves this player elsewhere (${n.data.reason})`, true, true);
        break;
      case 'viewerState': {
        const state = viewerStateUpdateSchema.safeParse(n.data);
        if (state.success) {
          this.repaired = state.data.rtx.repaired;
          this.events.viewerState(state.data);
        } else console.warn('signaling: invalid viewerState notification', state.error.issues[0]);
        break;
      }
    }
  }
}
