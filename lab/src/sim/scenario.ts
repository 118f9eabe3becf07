import type { ControlLoopParams } from '@pels/shared/control/controlLoop';
import type { ControlCoreParams } from '@pels/shared/control/controlCore';
import { streamContext } from '@pels/shared/control/streamContext';
import type { ProbeBoard } from '@pels/shared/pels/probeBoard';
import { probeBoardFor, RENDITION_POLICY_DEFAULTS } from '@pels/shared/pels/renditionPolicy';
import { mulberry32, syntheticFrames } from '@pels/shared/pels/syntheticStream';
import type { RenditionState } from '@pels/shared/protocol/api';
import { startCrossTraffic } from './crossTraffic';
import { EventQueue } from './eventQueue';
import { Link } from './links';
import { PACKET_BYTES, type Packet } from './packet';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './pelsQueue';
import { Receiver, type FeedbackSource } from './receiver';
import { Bottleneck, type ClassStats } from './bottleneck';
import { FgsSource, FrameSource, type FgsParams, type PelsSource } from './source';
import type { TrafficClass } from './packet';

/** The paper's FGS source, or the product's frames through pelsPolicy. */
export type SourceKind = 'fgs' | 'frames';

export interface FlowSpec {
  startMs: number;
  /** One-way delay of the flow's access link; the flow's RTT is 2 * (access + bottleneck delay). */
  accessDelayMs: number;
  source: SourceKind;
  /** Control parameters of this flow (rate bounds depend on the source). */
  control: ControlLoopParams;
  /**
   * A 'frames' flow's renditions, each a quarter of the one above in every
   * layer (as 640x360 to 320x180); its core chooses among them as a server
   * viewer's does, the flows sharing one probe board. Absent: one.
   */
  renditions?: number;
}

export interface FrameSourceParams {
  fps: number;
  /** Mean frame size per temporal layer, bytes. */
  meanBytes: readonly [number, number, number];
}

export interface ScenarioParams {
  seed: number;
  durationMs: number;
  /** Bottleneck (Fig. 6): 4 mb/s, half to the Internet queue. */
  capacityKbps: number;
  bottleneckDelayMs: number;
  internetShare: number;
  limits: QueueLimits;
  /** Bottleneck agent interval T (eq. 11). */
  routerIntervalMs: number;
  /** Access links (Fig. 6): 10 mb/s. */
  accessKbps: number;
  /** Offered Internet traffic; above its share it keeps the PELS queue at its share. 0: none. */
  crossTrafficKbps: number;
  feedback: FeedbackSource;
  /** RTCP mode: how often the receiver reports. */
  reportIntervalMs: number;
  fgs: FgsParams;
  frames: FrameSourceParams;
  flows: readonly FlowSpec[];
  /** Width of the statistics bins. */
  binMs: number;
  /** How often each flow's rate and gamma are sampled. */
  sampleMs: number;
}

export interface ControlSample {
  tMs: number;
  rateKbps: number;
  gamma: number;
  /** MKC's start-up phase still on. */
  startup: boolean;
  /** The rendition being sent. */
  rendition: number;
}

export interface FlowResult {
  spec: FlowSpec;
  samples: ControlSample[];
  /** Packets sent per color. */
  sent: Record<'green' | 'yellow' | 'red', number>;
  /** What arrived: packets per color and goodput over time. */
  receiver: Receiver;
  /** The rendition choice at the end: switches and time per rendition. */
  rendition: RenditionState;
}

export interface ScenarioResult {
  params: ScenarioParams;
  classes: Record<TrafficClass, ClassStats>;
  routerFeedback: Bottleneck['feedback'];
  flows: FlowResult[];
  events: number;
  wallMs: number;
}

/** The paper's setup (section 6.1); experiments override what they vary. */
export const PAPER_NETWORK: Omit<ScenarioParams, 'seed' | 'durationMs' | 'flows' | 'feedback'> = {
  capacityKbps: 4000,
  bottleneckDelayMs: 5,
  internetShare: 0.5,
  limits: DEFAULT_QUEUE_LIMITS,
  routerIntervalMs: 30,
  accessKbps: 10000,
  crossTrafficKbps: 2500,
  reportIntervalMs: 1000,
  // 10 fps: 126 packets of 500 bytes per frame (63,000 bytes) is then R_max = 5.04 mb/s.
  fgs: { fps: 10, baseKbps: 128, packetBytes: PACKET_BYTES },
  // Base layer 128 kb/s like the paper's; all layers about 730 kb/s.
  frames: { fps: 30, meanBytes: [2133, 4000, 3000] },
  binMs: 1000,
  sampleMs: 100,
};

/** Access links hold far more than a flow ever queues there; they only serialize and delay. */
const ACCESS_LIMIT_PACKETS = 1000;

/** Builds the bar-bell of Fig. 6 and runs it for durationMs of simulated time. */
export function runScenario(params: ScenarioParams): ScenarioResult {
  const events = new EventQueue();
  const random = mulberry32(params.seed);
  const receivers: Receiver[] = [];
  const bottleneck = new Bottleneck(
    events,
    {
      id: 'bottleneck',
      capacityKbps: params.capacityKbps,
      delayMs: params.bottleneckDelayMs,
      internetShare: params.internetShare,
      limits: params.limits,
      feedbackIntervalMs: params.routerIntervalMs,
      maxPacketBytes: 1500,
      binMs: params.binMs,
    },
    (packet: Packet) => {
      if (packet.flow >= 0) receivers[packet.flow]!.receive(packet);
    },
  );
  startCrossTraffic(events, params.crossTrafficKbps, PACKET_BYTES, random, (p) => bottleneck.receive(p));

  // The flows are viewers of one stream as far as probing goes: one move up at a time among them.
  const board = probeBoardFor(RENDITION_POLICY_DEFAULTS);
  const flows = params.flows.map((spec, i): Omit<FlowResult, 'rendition'> & { source: PelsSource } => {
    const access = new Link(events, { rateKbps: params.accessKbps, delayMs: spec.accessDelayMs, limitPackets: ACCESS_LIMIT_PACKETS }, (p) => bottleneck.receive(p));
    const out = (p: Packet): void => access.send(p);
    const source = makeSource(spec, i, events, params, out, board);
    const receiver = new Receiver(events, source.control, {
      feedback: params.feedback,
      returnDelayMs: params.bottleneckDelayMs + spec.accessDelayMs,
      routerIntervalMs: params.routerIntervalMs,
      reportIntervalMs: params.reportIntervalMs,
      binMs: params.binMs,
    });
    receivers.push(receiver);
    // A random phase within one frame interval, so flows started together do not send their frames in lockstep.
    const startMs = spec.startMs + (random() * 1000) / (spec.source === 'fgs' ? params.fgs.fps : params.frames.fps);
    events.at(startMs, () => {
      source.start();
      receiver.start();
    });
    return { spec, source, samples: [], sent: source.sent, receiver };
  });

  const sample = (): void => {
    for (const f of flows) {
      if (events.nowMs >= f.spec.startMs) {
        const { core } = f.source.control;
        const { rateKbps, gamma, startup } = core.state;
        f.samples.push({ tMs: events.nowMs, rateKbps, gamma, startup, rendition: core.renditionState(events.nowMs).current });
      }
    }
    events.after(params.sampleMs, sample);
  };
  events.at(0, sample);

  const t0 = performance.now();
  events.runUntil(params.durationMs);
  const wallMs = performance.now() - t0;

  return {
    params,
    classes: bottleneck.stats,
    routerFeedback: bottleneck.feedback,
    flows: flows.map(({ spec, samples, sent, receiver, source }) => ({ spec, samples, sent, receiver, rendition: source.control.core.renditionState(params.durationMs) })),
    events: events.eventsRun,
    wallMs,
  };
}

function makeSource(spec: FlowSpec, flow: number, events: EventQueue, params: ScenarioParams, out: (p: Packet) => void, board: ProbeBoard): PelsSource {
  const count = spec.source === 'frames' ? (spec.renditions ?? 1) : 1;
  // The product's core, as a viewer's: this flow's reports, the scenario's feedback, PELS, its renditions.
  const control: ControlCoreParams = {
    origin: `flow${flow}`,
    control: spec.control,
    feedback: params.feedback,
    mode: 'pels',
    startMs: spec.startMs,
    seed: params.seed * 1000 + flow,
    ...(count > 1 ? { renditions: { count, policy: RENDITION_POLICY_DEFAULTS } } : {}),
  };
  if (spec.source === 'fgs') return new FgsSource(flow, control, events, params.fgs, out);
  const { fps, meanBytes } = params.frames;
  const frameCount = Math.max(0, Math.ceil(((params.durationMs - spec.startMs) / 1000) * fps) + 1);
  // Each flow its own frame sizes, reproducible from the run's seed.
  const renditions = Array.from({ length: count }, (_, r) => {
    const scale = 4 ** -r;
    return syntheticFrames({ seed: params.seed * 1000 + flow + 100 * r, fps, meanBytes: [meanBytes[0] * scale, meanBytes[1] * scale, meanBytes[2] * scale], keyframeBytes: 20_000 * scale }, frameCount);
  });
  return new FrameSource(flow, control, events, renditions, PACKET_BYTES, out, streamContext({ board }));
}
