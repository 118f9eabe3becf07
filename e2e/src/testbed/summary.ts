/**
 * The testbed's summary: the JSON a run ends with (per viewer, the bottleneck,
 * the TCP flows, the synthetic viewers) and its per-second CSV, made from the
 * sampler's samples alone (no I/O).
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { FlowModeName, ViewerState } from '@pels/shared/protocol/api';
import type { RateControllerName } from '@pels/shared/rate/names';
import type { LatencyStages, PlayerStats } from '@pels/shared/protocol/playerHook';
import type { BottleneckCounters, BottleneckKind } from '../net/pelsBottleneck';
import type { UptaChange } from '../net/uptaAgent';
import type { UdpCounters } from '../net/udpCounters';
import { summarizeReceivers, type FrameDelivery, type ReceiverResult, type ReceiversReport, type ReceiversSummary } from '../loadtest/receiverReport';
import type { TcpFlowEnd } from '../tcp/tcpFlows';
import { fedConcealment, type FedConcealment } from './soundConcealment';
import { congestionOf, congestionSummary, intervalLoss, jainIndex, mean, median, round, timeToFullRateMs, type CongestionSummary, type psnrSummary, type ServerCounters } from './metrics';
import type { NodeResult, RejoinResult } from './clusterSummary';
import type { AppliedStep } from './network';
import type { Sample } from './sampler';
import type { StreamLoss } from './rtpLoss';
import { tcpFlowResults, videoGoodputKbps, type TcpFlowResult } from './tcpMetrics';
import type { TestbedOptions } from './testbed';

export interface ViewerResult {
  id: string;
  mode?: FlowModeName;
  /** The rate controller the server ran for this viewer. */
  controller?: RateControllerName;
  rateKbps?: number | null;
  sentKbps?: number | null;
  gamma?: number | null;
  loss?: Record<string, number | null>;
  rttMs?: number | null;
  framesSent?: ViewerState['framesSent'];
  framesSkipped?: number;
  dscp?: ViewerState['dscp'];
  framesDecoded?: PlayerStats['framesDecoded'];
  framesReceived?: PlayerStats['framesReceived'];
  /** Frames the player skipped (a reference missing) or got after their playout slot. */
  framesSkippedByPlayer?: number;
  framesLate?: number;
  /** Y-PSNR of the displayed frames over the second half, dB: mean and 5th percentile of the scored periods, and their share. */
  psnr?: { mean: number | null; p5: number | null; scoredShare: number | null };
  /** Page load to the first decoded frame, ms; null: none. */
  firstFrameMs?: number | null;
  /** The viewer's join (its first session created on the server) to the first decoded frame, ms; null: none, or the join unseen. */
  joinToFirstFrameMs?: number | null;
  /** Join to the first sample whose sent rate is at least 90% of the stream's full rate, ms (1 s resolution, rounded up); null: never. */
  timeToFullRateMs?: number | null;
  /** Frames shown more than 200 ms, over the whole run. */
  freezes?: number;
  checksumMismatches?: number;
  fps?: number | null;
  decodeErrors?: number;
  /**
   * Packets retransmitted by the server and received as retransmissions by the player, over the
   * run, and retransmitted bytes as a share of the bytes sent over the second half (percent).
   */
  rtx?: { sent: number | null; recovered: number | null; overheadPct: number | null };
  /** Key-frame requests the player sent on green. */
  pliSent?: number;
  /**
   * The sound as the player received it: packets received and lost (the receiver's counts over the run),
   * concealed samples over the samples received in the second half, and the player's A/V offset (audio
   * playout minus video display for the same instant, positive when the sound is late), median of its
   * per-second readings over the second half, ms; how long the player held the sound for the picture (its
   * jitter buffer target, soundDelay.ts), the median over the second half, ms. `fed`: the second half's
   * concealment split by whether the sound came at real time (soundConcealment.ts): the seconds it did and did
   * not, and the concealment over those it did. null: the player had no sound.
   */
  audio?: { packetsReceived: number; packetsLost: number; concealedRatio: number | null; avSyncMs: number | null; soundHeldMs: number | null; fed: FedConcealment } | null;
  /**
   * Live latency to each frame's display (the player's figures over its last 10 s,
   * sampled each second): the medians of its p50 and p95 over the second half, from
   * the publisher's capture (`from: 'publish'`, a publisher that stamps it: --ingest)
   * or else from the frame's entry at the server (`from: 'server entry'`); null: never known.
   */
  latencyMs?: { p50: number | null; p95: number | null; from: 'publish' | 'server entry' } | null;
  /** What each stage added (the player's LatencyStages), medians of its per-second figures over the second half; null: never known. */
  latencyStagesMs?: Record<keyof LatencyStages, number | null> | null;
  /** The controller's reading of the loss over the second half (the viewer state's `congestion`); null: the server gives none. */
  congestion?: CongestionSummary | null;
  /**
   * The server's pacer for this viewer: its rate (mean over the second half, kb/s), and how long a frame waited in it
   * (arrival to its last packet sent): mean over the second half's frames and the longest of the run, ms; null: a server without one.
   */
  pacing?: { kbps: number | null; delayMeanMs: number | null; delayMaxMs: number } | null;
  /**
   * Renditions (0: full size): time in each over the whole run and switches (the server's),
   * and each change the per-second samples saw: second of the run and the rendition it went to;
   * the switches the player saw in the frames it decoded.
   */
  rendition?: { timeMs: number[]; switches: number; changes: { t: number; to: number }[]; playerSwitches?: number };
  /**
   * What the player's signaling socket received over the run, kb/s of WebSocket payload: answers, and the
   * notifications (its stream's PSNR table rows, about twice a second, and its own state each second).
   */
  signalingKbps?: number;
  /** A synthetic viewer (receivers/): no player fields, its receiver's counts instead. */
  synthetic?: true;
  receiver?: SyntheticReceipt;
  errors: string[];
}

/** What one synthetic viewer received over the second half (after repair). */
export interface SyntheticReceipt {
  joinMs: number | null;
  /** Packets lost / expected per color; null: the color carried nothing. */
  loss: Record<Color, number | null>;
  packets: Record<Color, number>;
  /** Base frames received complete / sent (by TL0PICIDX); all frames complete / seen. */
  greenFrames: FrameDelivery;
  allFrames: FrameDelivery;
  nacksSent: Record<Color, number>;
}

function syntheticReceipt(r: ReceiverResult): SyntheticReceipt {
  const perColor = <T>(f: (c: Color) => T) => Object.fromEntries(COLORS.map((c) => [c, f(c)])) as Record<Color, T>;
  return {
    joinMs: round(r.joinMs, 0),
    loss: perColor((c) => {
      const x = r.colors[c];
      return x && x.expected > 0 ? round(x.lost / x.expected, 4) : null;
    }),
    packets: perColor((c) => r.colors[c]?.packets ?? 0),
    greenFrames: r.green,
    allFrames: r.all,
    nacksSent: perColor((c) => r.nacksSent[c] ?? 0),
  };
}

export interface TestbedResult {
  config: Record<string, unknown>;
  viewers: ViewerResult[];
  /** Over the viewers' MKC rates (second half). */
  jain: number | null;
  router?: {
    /** Which router ran: PELS (a queue per color) or one FIFO. */
    mode: BottleneckKind;
    capacityKbps: number;
    /** The capacity steps: when each was asked for and when the router had it (s into the run; null: it failed, see error). */
    capacitySteps: AppliedStep[];
    feedbackDeliveryErrors: number;
    classes: Record<string, { sent: number; dropped: number }>;
    /** The same counted over the second half. */
    secondHalf: Record<string, { sent: number; dropped: number }>;
  };
  /**
   * The viewers' host (the client namespace) over the run: datagrams dropped there because a socket's receive buffer
   * was full, loss after the router that every viewer's receiver reports count with the router's.
   */
  clientUdp?: UdpCounters;
  /** With --capture: each RTP stream the viewers' host received over the run, its loss by sequence number and as a libwebrtc receiver reports it. */
  capture?: { file: string; streams: StreamLoss[] };
  /** With synthetic viewers: what they received over the second half, together (per viewer under each one's `receiver`). */
  synthetic?: ReceiversSummary;
  /** With TCP flows: the flows, and Jain's index over every flow's throughput (video goodput and TCP, second half). */
  tcp?: TcpFlowResult[];
  tcpCongestionControl?: string;
  jainAllFlows?: number | null;
  /** With --upta: when the router started or stopped dropping each video flow (ms from the agent's start). */
  upta?: { threshold: number; changes: UptaChange[]; errors: number };
  cpuPercentOfOneCore: Record<string, Record<string, number>>;
  /** With --edges: each node (origin, edges) of the cluster. */
  nodes?: NodeResult[];
  /** With --kill-edge: the synthetic viewers of the edge killed, back through the front. */
  rejoin?: RejoinResult;
  /** The server's own counters over the run (its /metrics at the end): packets its channel writers dropped, keyframes its viewers' requests forced. */
  server?: ServerCounters;
  timeseriesFile?: string;
}

function pacingSummary(a: ViewerState | null | undefined, b: ViewerState, states: ViewerState[]): ViewerResult['pacing'] {
  if (!b.pacing) return null;
  const frames = b.pacing.delay.frames - (a?.pacing?.delay.frames ?? 0);
  const totalMs = b.pacing.delay.totalMs - (a?.pacing?.delay.totalMs ?? 0);
  return {
    kbps: round(mean(states.map((x) => x.pacing?.kbps ?? null).filter((x): x is number => x !== null)), 0),
    delayMeanMs: frames > 0 ? round(totalMs / frames, 2) : null,
    delayMaxMs: Math.round(b.pacing.delay.maxMs),
  };
}

export function summarize(
  o: TestbedOptions,
  bottleneckKind: BottleneckKind,
  samples: Sample[],
  pageErrors: string[][],
  cpu: TestbedResult['cpuPercentOfOneCore'],
  deliveryErrors: number,
  display: ReturnType<typeof psnrSummary>[],
  capacitySteps: AppliedStep[],
  tcp: { congestionControl: string; ends: (TcpFlowEnd | null)[] } | null,
  receivers: ReceiversReport | null,
): TestbedResult {
  const half = samples.slice(Math.max(0, Math.floor(samples.length / 2) - 1));
  const first = half[0]!;
  const last = samples[samples.length - 1]!;
  const elapsed = Math.max(1, last.t - first.t);
  /** What the server says of viewer i (the i-th of the samples' states) over the second half. */
  const serverView = (i: number): Partial<ViewerResult> => {
    const a = first.api[i];
    const b = last.api[i];
    const states = half.map((s) => s.api[i]).filter((x): x is ViewerState => !!x);
    return b
      ? {
          mode: b.mode,
          controller: b.controller,
          rateKbps: round(mean(states.map((x) => x.rateKbps)), 1),
          sentKbps: round(mean(states.map((x) => x.sentKbps)), 1),
          gamma: round(mean(states.map((x) => x.gamma)), 3),
          loss: Object.fromEntries(COLORS.map((c) => [c, round(a ? intervalLoss(a.perColor[c], b.perColor[c]) : null, 4)])),
          rttMs: b.rttMs === null ? null : round(b.rttMs, 2),
          framesSent: b.framesSent,
          framesSkipped: b.framesSkipped,
          dscp: b.dscp,
          rendition: { timeMs: b.rendition.timeMs.map((ms) => Math.round(ms)), switches: b.rendition.switches, changes: renditionChanges(samples, i) },
          congestion: congestionSummary(states.map(congestionOf)),
          pacing: pacingSummary(a, b, states),
        }
      : {};
  };
  const viewers: ViewerResult[] = pageErrors.map((errs, i) => {
    const id = `v${i + 1}`;
    const end = last.players[i];
    const errors = [...(end ? [] : ['player did not start']), ...(end?.stats.lastError ? [end.stats.lastError] : []), ...errs];
    if (!end) return { id, errors };
    const a = first.api[i];
    const b = last.api[i];
    const server = serverView(i);
    return {
      id,
      ...server,
      framesDecoded: end.stats.framesDecoded,
      framesReceived: end.stats.framesReceived,
      framesSkippedByPlayer: end.stats.framesSkipped,
      framesLate: end.stats.framesLate,
      psnr: display[i] ?? { mean: null, p5: null, scoredShare: null },
      firstFrameMs: round(end.firstFrameMs ?? null, 0),
      joinToFirstFrameMs: joinToFirstFrameMs(samples, i, end.firstFrameAtMs),
      timeToFullRateMs: fullRateAfterJoin(samples, i),
      freezes: end.stats.freezes,
      checksumMismatches: end.stats.checksumMismatches,
      fps: round((end.stats.framesDecoded.total - (first.players[i]?.stats.framesDecoded.total ?? 0)) / elapsed, 1),
      decodeErrors: end.stats.decodeErrors,
      rtx: { sent: b?.rtx.packetsSent ?? null, recovered: end.stats.packetsRecovered, overheadPct: rtxOverheadPct(a, b, server.sentKbps, elapsed) },
      pliSent: end.stats.pliSent,
      audio: audioSummary(half.map((x) => x.players[i]?.stats)),
      latencyMs: latencySummary(half.map((x) => x.players[i]?.stats)),
      latencyStagesMs: latencyStages(half.map((x) => x.players[i]?.stats)),
      ...(server.rendition ? { rendition: { ...server.rendition, playerSwitches: end.stats.renditionSwitches } } : {}),
      errors,
    };
  });
  receivers?.receivers.forEach((r, k) => {
    const i = pageErrors.length + k;
    const server = serverView(i);
    viewers.push({
      id: `s${k + 1}`,
      synthetic: true,
      ...server,
      timeToFullRateMs: fullRateAfterJoin(samples, i),
      rtx: { sent: last.api[i]?.rtx.packetsSent ?? null, recovered: null, overheadPct: rtxOverheadPct(first.api[i], last.api[i], server.sentKbps, elapsed) },
      receiver: syntheticReceipt(r),
      errors: [...(r.error ? [r.error] : []), ...(r.viewerId ? [] : ['the server never sent this viewer its state'])],
    });
  });
  const rates = viewers.map((v) => v.rateKbps).filter((r): r is number => typeof r === 'number');
  const result: TestbedResult = {
    // The router that ran: none without a bottleneck.
    config: { ...o, router: o.capacityKbps === undefined ? null : bottleneckKind, timeseriesFile: undefined, serverEnv: o.serverEnv },
    viewers,
    jain: round(jainIndex(rates), 4),
    cpuPercentOfOneCore: cpu,
  };
  if (receivers) result.synthetic = summarizeReceivers(receivers);
  if (o.tcp && tcp) {
    const flows = tcpFlowResults(samples, tcp.ends, samples.length - half.length);
    const video = viewers.map((v, i) => videoGoodputKbps(v.sentKbps, first.api[i], last.api[i]));
    result.tcp = flows;
    result.tcpCongestionControl = tcp.congestionControl;
    result.jainAllFlows = round(jainIndex([...video.map((v) => v ?? 0), ...flows.map((f) => f.secondHalfKbps ?? 0)]), 4);
  }
  if (o.capacityKbps !== undefined && last.router) {
    const classes: Record<string, { sent: number; dropped: number }> = {};
    const secondHalf: Record<string, { sent: number; dropped: number }> = {};
    for (const [name, q] of Object.entries(last.router)) {
      classes[name] = { sent: q.packets, dropped: q.dropped };
      const before = first.router?.[name as keyof BottleneckCounters];
      if (before) secondHalf[name] = { sent: q.packets - before.packets, dropped: q.dropped - before.dropped };
    }
    result.router = { mode: bottleneckKind, capacityKbps: o.capacityKbps, capacitySteps, feedbackDeliveryErrors: deliveryErrors, classes, secondHalf };
  }
  return result;
}


/** The samples where viewer i's rendition differs from the sample before. */
function renditionChanges(samples: Sample[], i: number): { t: number; to: number }[] {
  const out: { t: number; to: number }[] = [];
  let current = 0;
  for (const s of samples) {
    const r = s.api[i]?.rendition.current;
    if (r === undefined || r === current) continue;
    out.push({ t: s.t, to: r });
    current = r;
  }
  return out;
}

/** Retransmitted bytes between two states as a percentage of the bytes sent meanwhile (mean sent rate over `seconds`). */
function rtxOverheadPct(a: ViewerState | null | undefined, b: ViewerState | null | undefined, sentKbps: number | null | undefined, seconds: number): number | null {
  if (!a || !b || !sentKbps) return null;
  return round((100 * (b.rtx.bytesSent - a.rtx.bytesSent) * 8) / (sentKbps * 1000 * seconds), 2);
}

/**
 * From the viewer's join (the server's connectedAt) to the first sample at 90%
 * of its stream's full rate: the median of the stream's measured rate over the
 * run, since the testbed starts the stream with the server and its first
 * seconds' measurements are not yet steady.
 */
function fullRateAfterJoin(samples: Sample[], i: number): number | null {
  const joined = joinedAtMs(samples, i);
  const fullKbps = median(samples.map((s) => s.streamKbps[i]).filter((x): x is number => typeof x === 'number'));
  if (joined === null || fullKbps === null) return null;
  const points = samples.flatMap((s) => {
    const v = s.api[i];
    return v && s.atMs !== null ? [{ atMs: s.atMs, sentKbps: v.sentKbps }] : [];
  });
  return timeToFullRateMs(points, joined, fullKbps);
}

/** When viewer i joined: its first session's creation on the server (connectedAt), as the samples saw it; null: never seen. */
function joinedAtMs(samples: Sample[], i: number): number | null {
  const joined = samples.map((s) => s.api[i]).find((v) => v)?.connectedAt;
  return joined ? Date.parse(joined) : null;
}

/**
 * Start-up as a viewer sees it once the page runs: from its join (the server
 * creating its session on the player's join request) to the player's first
 * decoded frame, ms. Unlike firstFrameMs it leaves out the page's load, whose
 * script crosses the same bottleneck. Server and browser read this machine's
 * one clock. Null without a frame or a join seen, or when the frame came
 * first (from a session before the first sample).
 */
function joinToFirstFrameMs(samples: Sample[], i: number, firstFrameAtMs: number | undefined): number | null {
  const joined = joinedAtMs(samples, i);
  if (joined === null || firstFrameAtMs === undefined || firstFrameAtMs < joined) return null;
  return Math.round(firstFrameAtMs - joined);
}

/** One row per second: per viewer rate, gamma, p, recent loss per color, frames decoded, colors subscribed, rendition, round trip, its sound's counters; the router's counters; each TCP flow's bytes. */
export function timeseriesCsv(samples: Sample[]): string {
  const n = Math.max(0, ...samples.map((s) => s.api.length));
  const queues = ['green', 'yellow', 'red', 'video', 'internet', 'upta', 'random'] as const;
  const head = ['t', 'routerP'];
  for (let i = 1; i <= n; i++) {
    head.push(...['rateKbps', 'sentKbps', 'gamma', 'lossP', 'lossGreen', 'lossYellow', 'lossRed', 'framesDecoded', 'colors', 'rendition', 'fullBaseKbps', 'rttMs', 'audioPackets', 'audioLost', 'audioSamples', 'audioConcealed', 'audioSilentConcealed', 'audioFec', 'audioConcealmentEvents', 'audioNacks', 'audioInserted', 'audioRemoved', 'audioBufferMs', 'soundDelayMs'].map((k) => `v${i}.${k}`));
  }
  head.push(...queues.flatMap((q) => [`${q}.sent`, `${q}.dropped`]), 'capacityKbps');
  const tcpFlows = Math.max(0, ...samples.map((s) => s.tcpBytes?.length ?? 0));
  for (let i = 1; i <= tcpFlows; i++) head.push(`t${i}.bytes`);
  const rows = [head.join(',')];
  for (const s of samples) {
    const row: (string | number)[] = [s.t, s.routerFeedback?.p ?? ''];
    for (let i = 0; i < n; i++) {
      const v = s.api[i];
      const p = s.players[i];
      row.push(v?.rateKbps ?? '', v?.sentKbps ?? '', v?.gamma ?? '', v?.lossP ?? '');
      row.push(...COLORS.map((c) => v?.perColor[c].recentLoss ?? ''));
      row.push(p?.stats.framesDecoded.total ?? '');
      row.push(v?.colors.length ?? '');
      row.push(v?.rendition.current ?? '');
      // The full size's base rate as measured: the rendition choice's up and down thresholds are multiples of its highest and lowest over a window.
      row.push(v?.rendition.baseKbps[0] ?? '');
      row.push(v?.rttMs ?? '');
      // The sound as received, counted since the session began: a second's concealment is the difference of two rows.
      const a = p?.stats.audio;
      row.push(a?.packetsReceived ?? '', a?.packetsLost ?? '', a?.totalSamplesReceived ?? '', a?.concealedSamples ?? '', a?.silentConcealedSamples ?? '', a?.fecPacketsReceived ?? '');
      row.push(a?.concealmentEvents ?? '', a?.nackCount ?? '', a?.insertedSamplesForDeceleration ?? '', a?.removedSamplesForAcceleration ?? '');
      // The jitter buffer's mean delay since the session began, ms.
      row.push(a && a.jitterBufferEmittedCount > 0 ? (a.jitterBufferDelay / a.jitterBufferEmittedCount) * 1000 : '', p?.stats.soundDelayMs ?? '');
    }
    for (const q of queues) row.push(s.router?.[q]?.packets ?? '', s.router?.[q]?.dropped ?? '');
    row.push(s.capacityKbps ?? '');
    for (let i = 0; i < tcpFlows; i++) row.push(s.tcpBytes?.[i] ?? '');
    rows.push(row.map((x) => (typeof x === 'number' ? round(x, 4) : x)).join(','));
  }
  return rows.join('\n') + '\n';
}

/** The live latency of one player over the second half (its stats each second), for the JSON: from the publisher's capture when known. */
export function latencySummary(stats: (PlayerStats | undefined)[]): ViewerResult['latencyMs'] {
  const fromCapture = stats.flatMap((x) => (x?.latencyFromCaptureMs ? [x.latencyFromCaptureMs] : []));
  const known = fromCapture.length ? fromCapture : stats.flatMap((x) => (x?.latencyMs ? [x.latencyMs] : []));
  if (!known.length) return null;
  return { p50: round(median(known.map((l) => l.p50)), 0), p95: round(median(known.map((l) => l.p95)), 0), from: fromCapture.length ? 'publish' : 'server entry' };
}

/** Each stage of one player's latency over the second half: the median of its per-second figures. */
export function latencyStages(stats: (PlayerStats | undefined)[]): ViewerResult['latencyStagesMs'] {
  const known = stats.flatMap((x) => (x?.latencyStagesMs ? [x.latencyStagesMs] : []));
  if (!known.length) return null;
  const stage = (k: keyof LatencyStages) => round(median(known.flatMap((x) => (x[k] === null ? [] : [x[k]]))), 0);
  return { publisher: stage('publisher'), ingest: stage('ingest'), network: stage('network'), buffer: stage('buffer'), display: stage('display') };
}

/** The sound of one player over the second half (its stats each second), for the JSON. */
export function audioSummary(stats: (PlayerStats | undefined)[]): ViewerResult['audio'] {
  const withAudio = stats.filter((x): x is PlayerStats & { audio: NonNullable<PlayerStats['audio']> } => !!x?.audio);
  const a = withAudio[0]?.audio;
  const b = withAudio.at(-1)?.audio;
  if (!a || !b) return null;
  const samples = b.totalSamplesReceived - a.totalSamplesReceived;
  const numbers = (xs: (number | null)[]) => xs.flatMap((x) => (typeof x === 'number' ? [x] : []));
  return {
    packetsReceived: b.packetsReceived,
    packetsLost: b.packetsLost,
    concealedRatio: samples > 0 ? round((b.concealedSamples - a.concealedSamples) / samples, 4) : null,
    avSyncMs: round(median(numbers(withAudio.map((x) => x.avSyncMs))), 1),
    soundHeldMs: round(median(numbers(withAudio.map((x) => x.soundDelayMs))), 0),
    fed: fedConcealment(withAudio.map((x) => x.audio)),
  };
}
