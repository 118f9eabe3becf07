/**
 * Prometheus metrics (GET /metrics). Monitoring only: gauges are read from
 * the live objects when scraped, and the counters of viewers that left are
 * kept from the streams' observer events; nothing here is in the media or
 * control path.
 *
 * Label cardinality is bounded: `stream` (operator-made, a handful), `color`
 * (3), `layer` (3), `mode` (3), `controller` (8), `state` (8), `protocol` (3), `limit` (6), `kind` (2), `reason` (3 for keyframes, 5 for refusals), `at` (2). Per-viewer series carry a
 * `viewer` label for at most VIEWER_SERIES_LIMIT viewers per scrape (see
 * viewerSeries.ts); the aggregates by stream and color cover every viewer.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { COLORS, type Color } from '@pels/shared/pels/color';
import { FLOW_MODES, UPTA_STATES, type FlowModeName, type ViewerState } from '@pels/shared/protocol/api';
import { STREAM_STATES } from '@pels/shared/protocol/signaling';
import type { BottleneckFeedbackHub } from '../feedback/bottleneckFeedbackHub';
import { TextBody } from '../http/httpServer';
import type { Limits } from '../limits/limits';
import { LIMIT_NAMES } from '../limits/rejections';
import { SOCKET_KINDS } from '../limits/socketsPerAddress';
import type { DscpMarker } from '../net/dscpMarker';
import { REFUSAL_REASONS, type PublishGate } from '../live/publishGate';
import { PUBLISH_PROTOCOLS } from '../live/publisher';
import type { ControlSettings } from '../operator/controlSettings';
import { DROP_SITES } from '../quality/dropWarning';
import type { Stream } from '../streams/stream';
import { KEYFRAME_REASONS } from '../streams/keyframeRequests';
import type { StreamRegistry } from '../streams/streamRegistry';
import type { ChannelDrops } from '../sfu/packetChannel';
import type { MediasoupWorkers } from './mediasoupWorkers';
import { viewersToExport } from './viewerSeries';

export const VIEWER_SERIES_LIMIT = 50;

const LAYERS = ['tid0', 'tid1', 'tid2'] as const;

/** Kept from a stream's events: sessions started, and what the viewers that already left sent and lost. */
interface StreamTotals {
  packetsSent: Record<Color, number>;
  packetsLost: Record<Color, number>;
  framesSent: Record<(typeof LAYERS)[number], number>;
  framesSkipped: number;
  sessions: Record<FlowModeName, number>;
  rtx: Pick<ViewerState['rtx'], 'nacksReceived' | 'packetsSent' | 'bytesSent'>;
  keyframeRequests: Record<Color, number>;
}

export interface ServerMetricsDeps {
  streams: StreamRegistry;
  router: BottleneckFeedbackHub;
  control: ControlSettings;
  mediasoup: MediasoupWorkers;
  limits: Limits;
  dscp: Pick<DscpMarker, 'markedSsrcs'>;
  /** Packets the media workers' channel writers dropped so far, per color. */
  channelDrops: Readonly<ChannelDrops>;
  publish: Pick<PublishGate, 'counts'>;
}

export class ServerMetrics {
  private readonly registry = new Registry();
  private readonly totals = new WeakMap<Stream, StreamTotals>();
  private readonly m;
  /** A scrape in progress: a concurrent one shares it (each resets and refills every metric). */
  private rendering: Promise<TextBody> | null = null;

  constructor(private readonly d: ServerMetricsDeps) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
    const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers });
    this.m = {
      streamState: gauge('pels_stream_state', 'Ingest state of each source (1 for its current state)', ['stream', 'state']),
      framesIngested: counter('pels_stream_frames_ingested_total', 'Encoded frames read from the ingest', ['stream']),
      audioPackets: counter('pels_stream_audio_packets_total', "Sound packets (Opus) sent to the stream's viewers, each counted once (not its copy)", ['stream']),
      qualityDropped: counter('pels_quality_planes_dropped_total', 'Planes the quality measurement dropped unscored because it fell behind (the machine short of CPU): their frames get no PSNR row; at: the reference reader (a quality worker had a queue full) or a quality thread (a plane or frame waited past the queue limit)', ['stream', 'at']),
      restarts: counter('pels_stream_restarts_total', 'Ingest restarts of the source (FFmpeg and the encoder)', ['stream']),
      layerKbps: gauge('pels_stream_layer_bitrate_kbps', 'Measured bitrate of each temporal layer, kb/s', ['stream', 'layer']),
      keyframeRequests: counter('pels_keyframe_requests_total', "Keyframe requests of a stream's viewers: join (a viewer starts), pli (a player lost its base chain) or switch (a viewer moves to another rendition)", ['stream', 'reason']),
      keyframesForced: counter('pels_keyframes_forced_total', "Keyframes the viewers' requests forced (throttled: at most one per KEYFRAME_MIN_GAP_MS)", ['stream']),
      viewers: gauge('pels_viewers', 'Viewers connected', ['stream', 'mode']),
      viewersUpta: gauge('pels_viewers_upta', 'Viewers by what useless-packet avoidance lets out: every layer, the base layer only, or nothing (all 0 with UPTA off)', ['stream', 'state']),
      sessions: counter('pels_viewer_sessions_total', 'Viewer sessions started, by the mode they started in', ['stream', 'mode']),
      packetsSent: counter('pels_packets_sent_total', 'RTP packets sent on each color stream, all viewers', ['stream', 'color']),
      packetsLost: counter('pels_packets_lost_total', 'RTP packets lost on each color stream (RTCP receiver reports), all viewers', ['stream', 'color']),
      framesSent: counter('pels_frames_sent_total', 'Frames sent to viewers, by temporal layer', ['stream', 'layer']),
      framesSkipped: counter('pels_frames_skipped_total', 'Frames not sent to a viewer (over its rate, or a reference missing)', ['stream']),
      nacks: counter('pels_nacks_received_total', 'NACK packets received from viewers', ['stream']),
      rtxPackets: counter('pels_rtx_packets_sent_total', 'RTP packets retransmitted to viewers (NACK + RTX), as the media worker sent them: with those dropped after for colors not repaired', ['stream']),
      rtxBytes: counter('pels_rtx_bytes_sent_total', 'Bytes retransmitted to viewers, as the media worker sent them: with those dropped after for colors not repaired', ['stream']),
      pliReceived: counter('pels_viewer_keyframe_requests_total', 'Key-frame requests (PLI, FIR) received from viewers, by color stream', ['stream', 'color']),
      viewerRate: gauge('pels_viewer_rate_kbps', 'Rate a viewer\'s rate controller (the controller label) sets, kb/s (capped set of viewers)', ['stream', 'viewer', 'controller']),
      viewerSent: gauge('pels_viewer_sent_kbps', 'Rate sent to a viewer over the last second, kb/s (capped set of viewers)', ['stream', 'viewer']),
      viewerGamma: gauge('pels_viewer_gamma', 'Red share gamma of a viewer (capped set of viewers)', ['stream', 'viewer']),
      viewerLoss: gauge('pels_viewer_loss_ratio', 'Loss of a viewer over the last receiver report interval (capped set of viewers)', ['stream', 'viewer', 'color']),
      viewerRtt: gauge('pels_viewer_rtt_seconds', 'Round-trip time to a viewer (capped set of viewers)', ['stream', 'viewer']),
      viewerAudioKbps: gauge('pels_viewer_audio_kbps', "Rate of a viewer's sound over the last second, kb/s (counted in its rate; capped set of viewers)", ['stream', 'viewer']),
      viewerAudioLost: gauge('pels_viewer_audio_packets_lost', "Packets of a viewer's sound lost, from its receiver reports (capped set of viewers)", ['stream', 'viewer']),
      viewerAudioLoss: gauge('pels_viewer_audio_loss_ratio', "Loss of a viewer's sound over the last receiver report interval (capped set of viewers)", ['stream', 'viewer']),
      viewersOmitted: gauge('pels_viewer_series_omitted', `Viewers without per-viewer series (over the limit of ${VIEWER_SERIES_LIMIT})`),
      routerP: gauge('pels_router_feedback_p', "Router agent's latest eq. 11 feedback p = (R - C) / R"),
      routerOffered: gauge('pels_router_offered_kbps', 'Rate offered to the PELS queue in the latest router sample, kb/s'),
      routerCapacity: gauge('pels_router_capacity_kbps', 'PELS queue capacity in the latest router sample, kb/s'),
      gain: gauge('pels_control_gain', 'Controller gains new viewers start with', ['gain']),
      workers: gauge('pels_mediasoup_workers', 'Live mediasoup workers'),
      workersStarted: counter('pels_mediasoup_workers_started_total', 'mediasoup workers started (more than 1: a worker died and was replaced)'),
      workerCpu: counter('pels_mediasoup_worker_cpu_seconds_total', 'CPU time of the live mediasoup workers', ['mode']),
      workerRss: gauge('pels_mediasoup_worker_max_rss_bytes', 'Peak resident memory of the live mediasoup workers'),
      routers: gauge('pels_mediasoup_routers', 'Live mediasoup routers (one per stream and media worker, one per WHIP publisher)'),
      transports: gauge('pels_mediasoup_transports', 'Live mediasoup transports of viewers (two per viewer; any after every viewer left is a leak)'),
      consumers: gauge('pels_mediasoup_consumers', 'Live mediasoup consumers (a few per viewer; any after every viewer left is a leak)'),
      limitRejections: counter('pels_limit_rejections_total', 'Refusals and closes by a server limit (see docs/configuration.md)', ['limit']),
      notificationsDropped: counter('pels_signaling_notifications_dropped_total', "Quality and viewerState notifications not sent to a player whose socket's send buffer was over half full"),
      socketsOpen: gauge('pels_websockets_open', 'WebSockets open: the players\' signaling and the dashboards\' feed', ['kind']),
      channelDropped: counter('pels_channel_packets_dropped_total', "Packets not written to a media worker's channel because its backlog was over the cap (red first, then yellow, never green)", ['color']),
      publishAccepted: counter('pels_publish_accepted_total', 'Publishers accepted on a live stream, by protocol', ['protocol']),
      publishRefused: counter('pels_publish_refused_total', 'Publish attempts refused: locked_out (address past PUBLISH_KEY_FAILURES_PER_MINUTE wrong keys), rate_limited (address over PUBLISH_ATTEMPTS_PER_MINUTE), bad_key (no live stream has it), busy (the stream has a publisher and takeover is off), malformed (a protocol error)', ['protocol', 'reason']),
      dscpMarked: gauge('pels_dscp_marked_ssrcs', 'RTP streams (SSRCs) whose DSCP the kernel marks now'),
    };
    d.streams.observer.on('newstream', (s) => this.watch(s));
    for (const s of d.streams.all()) this.watch(s);
  }

  /** The text exposition of every metric, read now. */
  render(): Promise<TextBody> {
    this.rendering ??= (async () => {
      try {
        await this.refresh();
        return new TextBody(this.registry.contentType, await this.registry.metrics());
      } finally {
        this.rendering = null;
      }
    })();
    return this.rendering;
  }

  private watch(stream: Stream): void {
    const totals: StreamTotals = {
      packetsSent: { green: 0, yellow: 0, red: 0 },
      packetsLost: { green: 0, yellow: 0, red: 0 },
      framesSent: { tid0: 0, tid1: 0, tid2: 0 },
      framesSkipped: 0,
      sessions: { pels: 0, 'best-effort': 0, nack: 0, rlm: 0 },
      rtx: { nacksReceived: 0, packetsSent: 0, bytesSent: 0 },
      keyframeRequests: { green: 0, yellow: 0, red: 0 },
    };
    this.totals.set(stream, totals);
    stream.on('newviewer', (v) => totals.sessions[v.state().mode]++);
    stream.on('viewerclose', (v) => {
      for (const c of COLORS) {
        totals.packetsSent[c] += v.perColor[c].packetsSent;
        totals.packetsLost[c] += v.perColor[c].packetsLost;
        totals.keyframeRequests[c] += v.keyframeRequests[c];
      }
      totals.rtx.nacksReceived += v.rtx.nacksReceived;
      totals.rtx.packetsSent += v.rtx.packetsSent;
      totals.rtx.bytesSent += v.rtx.bytesSent;
      for (const l of LAYERS) totals.framesSent[l] += v.framesSent[l];
      totals.framesSkipped += v.framesSkipped;
    });
  }

  private async refresh(): Promise<void> {
    const m = this.m;
    // Series of streams and viewers that are gone must disappear: start from empty each scrape.
    for (const metric of Object.values(m)) metric.reset();
    const all: ViewerState[] = [];
    for (const s of this.d.streams.all()) {
      const info = s.operatorInfo();
      const stream = s.id;
      for (const state of STREAM_STATES) m.streamState.set({ stream, state }, info.state === state ? 1 : 0);
      m.framesIngested.inc({ stream }, info.framesIngested);
      m.audioPackets.inc({ stream }, s.audio.packetsSent);
      m.restarts.inc({ stream }, info.restarts);
      for (const at of DROP_SITES) m.qualityDropped.inc({ stream, at }, s.qualityDrops()[at]);
      const keyframes = s.keyframeCounts();
      for (const reason of KEYFRAME_REASONS) m.keyframeRequests.inc({ stream, reason }, keyframes.requests[reason]);
      m.keyframesForced.inc({ stream }, keyframes.forced);
      const kbps = s.layerKbps();
      if (kbps) for (const layer of LAYERS) m.layerKbps.set({ stream, layer }, kbps[layer]);
      const live = s.viewerStates();
      all.push(...live);
      const totals = this.totals.get(s);
      for (const mode of FLOW_MODES) {
        m.viewers.set({ stream, mode }, live.filter((v) => v.mode === mode).length);
        m.sessions.inc({ stream, mode }, totals?.sessions[mode] ?? 0);
      }
      for (const state of UPTA_STATES) m.viewersUpta.set({ stream, state }, live.filter((v) => v.upta?.state === state).length);
      for (const color of COLORS) {
        m.packetsSent.inc({ stream, color }, (totals?.packetsSent[color] ?? 0) + sum(live, (v) => v.perColor[color].packetsSent));
        m.packetsLost.inc({ stream, color }, (totals?.packetsLost[color] ?? 0) + sum(live, (v) => v.perColor[color].packetsLost));
        m.pliReceived.inc({ stream, color }, (totals?.keyframeRequests[color] ?? 0) + sum(live, (v) => v.keyframeRequests[color]));
      }
      m.nacks.inc({ stream }, (totals?.rtx.nacksReceived ?? 0) + sum(live, (v) => v.rtx.nacksReceived));
      m.rtxPackets.inc({ stream }, (totals?.rtx.packetsSent ?? 0) + sum(live, (v) => v.rtx.packetsSent));
      m.rtxBytes.inc({ stream }, (totals?.rtx.bytesSent ?? 0) + sum(live, (v) => v.rtx.bytesSent));
      for (const layer of LAYERS) m.framesSent.inc({ stream, layer }, (totals?.framesSent[layer] ?? 0) + sum(live, (v) => v.framesSent[layer]));
      m.framesSkipped.inc({ stream }, (totals?.framesSkipped ?? 0) + sum(live, (v) => v.framesSkipped));
    }
    const { kept, omitted } = viewersToExport(all, VIEWER_SERIES_LIMIT);
    m.viewersOmitted.set(omitted);
    for (const v of kept) {
      const labels = { stream: v.streamId, viewer: v.id };
      m.viewerRate.set({ ...labels, controller: v.controller }, v.rateKbps);
      m.viewerSent.set(labels, v.sentKbps);
      m.viewerGamma.set(labels, v.gamma);
      if (v.rttMs !== null) m.viewerRtt.set(labels, v.rttMs / 1000);
      if (v.audio) {
        m.viewerAudioKbps.set(labels, v.audio.kbps);
        m.viewerAudioLost.set(labels, v.audio.packetsLost);
        m.viewerAudioLoss.set(labels, v.audio.fractionLost);
      }
      for (const color of COLORS) {
        const loss = v.perColor[color].recentLoss;
        if (loss !== null) m.viewerLoss.set({ ...labels, color }, loss);
      }
    }
    const router = this.d.router.state();
    if (router) {
      m.routerP.set(router.p);
      if (router.offeredKbps !== undefined) m.routerOffered.set(router.offeredKbps);
      if (router.capacityKbps !== undefined) m.routerCapacity.set(router.capacityKbps);
    }
    const { gains } = this.d.control.info();
    m.gain.set({ gain: 'alpha_kbps' }, gains.alphaKbps);
    m.gain.set({ gain: 'beta' }, gains.beta);
    m.gain.set({ gain: 'sigma' }, gains.sigma);
    m.gain.set({ gain: 'p_thr' }, gains.pThr);
    const usage = await this.d.mediasoup.usage();
    m.workers.set(usage.workers);
    m.workersStarted.inc(usage.started);
    m.workerCpu.inc({ mode: 'user' }, usage.userSeconds);
    m.workerCpu.inc({ mode: 'system' }, usage.systemSeconds);
    m.workerRss.set(usage.maxRssBytes);
    m.routers.set(usage.routers);
    m.transports.set(usage.transports);
    m.consumers.set(usage.consumers);
    const { rejections, sockets } = this.d.limits;
    for (const limit of LIMIT_NAMES) m.limitRejections.inc({ limit }, rejections.count(limit));
    m.notificationsDropped.inc(rejections.notificationsDropped);
    for (const kind of SOCKET_KINDS) m.socketsOpen.set({ kind }, sockets.open()[kind]);
    m.dscpMarked.set(this.d.dscp.markedSsrcs);
    for (const color of COLORS) m.channelDropped.inc({ color }, this.d.channelDrops[color]);
    const publish = this.d.publish.counts;
    for (const protocol of PUBLISH_PROTOCOLS) {
      m.publishAccepted.inc({ protocol }, publish.accepted[protocol]);
      for (const reason of REFUSAL_REASONS) m.publishRefused.inc({ protocol, reason }, publish.refused[protocol][reason]);
    }
  }
}

function sum(viewers: readonly ViewerState[], f: (v: ViewerState) => number): number {
  return viewers.reduce((acc, v) => acc + f(v), 0);
}
