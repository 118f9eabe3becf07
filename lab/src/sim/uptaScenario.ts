/**
 * The single-congested-link scenario for useless-packet avoidance: a CBR
 * video, a TCP Reno flow and an ON-OFF source through one fair bottleneck.
 * The ON-OFF source is on for the first `onMs` (the video's unintelligible
 * interval U, where its fair share is below what it needs), off after (the
 * intelligible interval I).
 */
import { EventQueue } from './eventQueue';
import { FairBottleneck, type FairScheduler, type FlowPacket } from './fairBottleneck';
import { Link } from './links';
import { TcpReceiver, TcpSender } from './tcp';

export const VIDEO = 0;
export const TCP = 1;
export const ONOFF = 2;

export interface UptaScenarioParams {
  scheduler: FairScheduler;
  /** The video's loss threshold q; undefined: no UPTA. */
  uptaThreshold: number | undefined;
  onMs: number;
  durationMs: number;
  /** TCP bytes to download from t = 0; undefined: a persistent flow. */
  downloadBytes?: number;
  random: () => number;
}

/** The network and sources (fixed by the scenario). */
export const UPTA_NETWORK = {
  capacityKbps: 4000,
  bottleneckDelayMs: 1,
  accessKbps: 10_000,
  accessDelayMs: 0.001,
  bufferPackets: 100,
  videoPacketBytes: 216,
  videoPacketsPerS: 1019,
  frameMs: 40,
  /** Frames from one intra frame to the next. */
  gop: 12,
  onOffKbps: 2000,
  dataPacketBytes: 512,
  tcpPayloadBytes: 472,
  tcpWindowSegments: 128,
  tcpMinRtoMs: 200,
  rateAveragingMs: 100,
  csfqAlphaMs: 200,
} as const;

export interface UptaScenarioResult {
  /** Per 100 ms bin: kb/s received of each flow (video, TCP, ON-OFF). */
  binsKbps: number[][];
  tcpWireBytesU: number;
  tcpWireBytesI: number;
  tcpGoodputBytes: number;
  onOffBytesU: number;
  videoBytesI: number;
  videoSentU: number;
  videoLostU: number;
  videoSentI: number;
  videoLostI: number;
  /** Frames sent, and of those the ones intelligible (see frameIntelligible). */
  framesSent: number;
  framesIntelligible: number;
  /** Download completion, s; null: persistent flow or not done. */
  downloadS: number | null;
  uptaDrops: number;
  /** When UPTA started or stopped dropping the video, ms. */
  uptaToggles: number[];
  events: number;
}

const BIN_MS = 100;

/**
 * A frame is intelligible when at most q of its packets were lost and so were
 * at most q of those of every frame back to its intra frame: a frame decoded
 * from an unintelligible reference is unintelligible too. (q was found for
 * random loss spread over the whole stream, so it stands for a frame's loss.)
 */
export function intelligibleFrames(framePackets: ReadonlyArray<{ sent: number; lost: number }>, gop: number, q: number): number {
  let ok = 0;
  let chainOk = true;
  framePackets.forEach((f, i) => {
    if (i % gop === 0) chainOk = true;
    chainOk = chainOk && f.sent > 0 && f.lost <= q * f.sent;
    if (chainOk) ok++;
  });
  return ok;
}

export function runUptaScenario(s: UptaScenarioParams, intelligibilityThreshold: number): UptaScenarioResult {
  const n = UPTA_NETWORK;
  const events = new EventQueue();
  const bins: number[][] = [[], [], []];
  const addBin = (flow: number, bytes: number): void => {
    const i = Math.floor(events.nowMs / BIN_MS);
    const b = bins[flow]!;
    while (b.length <= i) b.push(0);
    b[i]! += (bytes * 8) / BIN_MS;
  };
  const frames = Math.ceil(s.durationMs / n.frameMs);
  const frameSent = new Array<number>(frames).fill(0);
  const frameGot = new Array<number>(frames).fill(0);
  const r: UptaScenarioResult = {
    binsKbps: bins,
    tcpWireBytesU: 0, tcpWireBytesI: 0, tcpGoodputBytes: 0, onOffBytesU: 0, videoBytesI: 0,
    videoSentU: 0, videoLostU: 0, videoSentI: 0, videoLostI: 0,
    framesSent: frames, framesIntelligible: 0, downloadS: null, uptaDrops: 0, uptaToggles: [], events: 0,
  };
  const inU = (ms: number): boolean => ms < s.onMs;

  const receiver = new TcpReceiver();
  let sender: TcpSender;
  const ackDelayMs = 2 * n.accessDelayMs + n.bottleneckDelayMs;
  const onArrive = (p: FlowPacket): void => {
    addBin(p.flow, p.bytes);
    if (p.flow === VIDEO) {
      frameGot[Math.floor(p.sentAtMs / n.frameMs)]!++;
      if (!inU(events.nowMs)) r.videoBytesI += p.bytes;
    } else if (p.flow === ONOFF) {
      if (inU(events.nowMs)) r.onOffBytesU += p.bytes;
    } else {
      if (events.nowMs < s.durationMs) {
        if (inU(events.nowMs)) r.tcpWireBytesU += p.bytes;
        else r.tcpWireBytesI += p.bytes;
      }
      const ack = receiver.onSegment(p.seq, p.bytes);
      if (events.nowMs < s.durationMs) r.tcpGoodputBytes = receiver.delivered * n.tcpPayloadBytes;
      events.after(ackDelayMs, () => sender.onAck(ack));
    }
  };
  const egress = new Link<FlowPacket>(events, { rateKbps: n.accessKbps, delayMs: n.accessDelayMs, limitPackets: 1000 }, onArrive);
  const router = new FairBottleneck(
    events,
    {
      scheduler: s.scheduler,
      capacityKbps: n.capacityKbps,
      delayMs: n.bottleneckDelayMs,
      bufferPackets: n.bufferPackets,
      flows: 3,
      uptaThresholds: s.uptaThreshold === undefined ? undefined : [s.uptaThreshold, undefined, undefined],
      rateAveragingMs: n.rateAveragingMs,
      csfqAlphaMs: n.csfqAlphaMs,
      random: s.random,
    },
    (p) => egress.send(p),
  );
  const access = [0, 1, 2].map(() => new Link<FlowPacket>(events, { rateKbps: n.accessKbps, delayMs: n.accessDelayMs, limitPackets: 1000 }, (p) => router.receive(p)));
  const send = (flow: number, bytes: number, seq: number): void => access[flow]!.send({ flow, bytes, seq, sentAtMs: events.nowMs });

  // CBR video for the whole run, ON-OFF while on.
  const videoGap = 1000 / n.videoPacketsPerS;
  for (let k = 0; k * videoGap < s.durationMs; k++) {
    events.at(k * videoGap, () => {
      frameSent[Math.floor(events.nowMs / n.frameMs)]!++;
      if (inU(events.nowMs)) r.videoSentU++;
      else r.videoSentI++;
      send(VIDEO, n.videoPacketBytes, k);
    });
  }
  const onOffGap = (n.dataPacketBytes * 8) / n.onOffKbps;
  for (let k = 0; k * onOffGap < s.onMs; k++) events.at(k * onOffGap, () => send(ONOFF, n.dataPacketBytes, k));

  const segments = s.downloadBytes === undefined ? undefined : Math.ceil(s.downloadBytes / n.tcpPayloadBytes);
  sender = new TcpSender(
    events,
    { flavour: 'reno', initialRtoMs: 1000, segmentBytes: n.dataPacketBytes, payloadBytes: n.tcpPayloadBytes, windowSegments: n.tcpWindowSegments, initialCwnd: 1, minRtoMs: n.tcpMinRtoMs, ...(segments === undefined ? {} : { segments }) },
    (seq, bytes) => send(TCP, bytes, seq),
  );
  events.at(0, () => sender.start());
  // A download may outlast the video: run until it is done (at most a minute more).
  const endMs = s.downloadBytes === undefined ? s.durationMs + 50 : s.durationMs + 60_000;
  events.runUntil(endMs);

  // Video loss by the interval the packet was sent in: count what arrived per frame.
  frameSent.forEach((sent, i) => {
    const lost = sent - frameGot[i]!;
    if (inU(i * n.frameMs)) r.videoLostU += lost;
    else r.videoLostI += lost;
  });
  r.framesIntelligible = intelligibleFrames(frameSent.map((sent, i) => ({ sent, lost: sent - frameGot[i]! })), n.gop, intelligibilityThreshold);
  r.downloadS = sender.doneAtMs === undefined ? null : sender.doneAtMs / 1000;
  r.uptaDrops = router.uptaDrops[VIDEO]!;
  r.uptaToggles = router.uptaToggles[VIDEO]!;
  r.events = events.eventsRun;
  return r;
}
