/**
 * A viewer of a two-rendition stream on a path whose loss changes by phase,
 * driving a control core as the server does: a frame set every 33 ms (a
 * rendition's keyframe every 2 s and at the frame after its encoder was
 * asked), a stats poll every 250 ms (receiver reports once a second), the
 * renditions' rates every second. Loss is deterministic (a running share of
 * what was sent), and only the color streams UPTA lets out carry packets.
 * For tests of the whole core; no randomness but the core's own.
 */
import { COLORS, type Color } from '../pels/color';
import { TEMPORAL_PATTERN, type FrameInfo } from '../pels/frame';
import { MKC_PAPER_GAINS } from '../pels/mkc';
import { RENDITION_POLICY_DEFAULTS } from '../pels/renditionPolicy';
import { IntelligibilityModel } from '../upta/intelligibility';
import { VIEWER_GATE_DEFAULTS } from '../upta/viewerGate';
import type { ControlCoreParams, ControlOutput } from './controlCore';
import type { ControlInput } from './input';
import type { StreamStats } from './receiverReports';

/** Bytes of a frame by temporal layer, and of a keyframe, per rendition: 0 full size, 1 a quarter. */
const SIZES = [
  { tid: [3000, 1500, 1000], key: 10_000 },
  { tid: [750, 375, 250], key: 2500 },
] as const;
/** Base and full rates of the renditions, kb/s (30 fps, the 0,2,1,2 pattern). */
export const BASE_KBPS = [180, 45];
export const FULL_KBPS = [390, 97.5];
const PACKET_BYTES = 1200;

/** A table like the default clip's: 30 dB for a frame itself, 1.7 dB less per frame repeated. */
export const CLIP_MODEL = new IntelligibilityModel(
  Array.from({ length: 300 }, (_, index) => ({ index, tid: TEMPORAL_PATTERN[index % 4]!, psnr: Array.from({ length: Math.min(9, index + 1) }, (_, k) => 30 - 1.7 * k) })),
);

/** The core's parameters for such a viewer: MKC without start-up, two renditions, UPTA at a 20 dB floor. */
export function simulatedParams(seed: number, over: Partial<ControlCoreParams> = {}): ControlCoreParams {
  return {
    origin: `v${seed}`,
    control: { mkc: { ...MKC_PAPER_GAINS, initialKbps: 450, minKbps: BASE_KBPS[1]!, maxKbps: FULL_KBPS[0]! * 1.2 } },
    feedback: 'rtcp',
    mode: 'pels',
    congestion: { unknownWireMs: 0 },
    startMs: 0,
    seed,
    renditions: { count: 2, policy: RENDITION_POLICY_DEFAULTS },
    upta: { ...VIEWER_GATE_DEFAULTS, floorDb: 20 },
    ...over,
  };
}

export interface PathPhase {
  untilMs: number;
  /** Share of each color's packets lost. */
  loss: Record<Color, number>;
}

/** What the viewer did: every input with the core's output, in order. */
export type Trace = { input: ControlInput; output: ControlOutput }[];

/** Runs the viewer through the phases; `step` is the core's (or a recording wrapper's). */
export function simulateViewer(core: { step(input: ControlInput): ControlOutput; allows(color: Color): boolean }, phases: readonly PathPhase[]): Trace {
  const trace: Trace = [];
  const step = (input: ControlInput) => {
    const output = core.step(input);
    trace.push({ input, output });
    return output;
  };
  const sent = { green: 0, yellow: 0, red: 0 };
  const reported: Record<Color, StreamStats> = Object.fromEntries(COLORS.map((c) => [c, { packetCount: 0, packetsLost: 0, fractionLost: 0, jitter: 0, roundTripTime: 20 }])) as Record<Color, StreamStats>;
  const asked = [false, false];
  let index = 0;
  let t = 0;
  for (const phase of phases) {
    for (; t < phase.untilMs; t++) {
      if (t % 1000 === 0) {
        step({ kind: 'rate-bounds', atMs: t, minKbps: BASE_KBPS[1]!, maxKbps: FULL_KBPS[0]! * 1.2 });
        step({ kind: 'rendition-rates', atMs: t, baseKbps: BASE_KBPS, fullKbps: FULL_KBPS });
        // A receiver report on each stream that carried packets: its counters, with the phase's share lost.
        for (const c of COLORS) if (sent[c] > 0) reported[c] = { ...reported[c], packetCount: sent[c], packetsLost: Math.floor(sent[c] * phase.loss[c]), jitter: t };
      }
      if (t % 250 === 0) step({ kind: 'receiver-reports', atMs: t, streams: Object.fromEntries(COLORS.filter((c) => sent[c] > 0).map((c) => [c, reported[c]])) });
      if (t % 33 !== 0) continue;
      const frames: FrameInfo[] = SIZES.map((size, r) => {
        const keyframe = index % 60 === 0 || asked[r]!;
        asked[r] = false;
        const temporalId = keyframe ? 0 : TEMPORAL_PATTERN[index % 4]!;
        return { temporalId, keyframe, bytes: keyframe ? size.key : size.tid[temporalId] };
      });
      index++;
      const out = step({ kind: 'frames', atMs: t, frames });
      if (out.keyframeRequest !== null) asked[out.keyframeRequest] = true;
      const d = out.decision?.frame;
      if (d?.send && core.allows(d.color)) sent[d.color] += Math.ceil(frames[out.decision!.rendition]!.bytes / PACKET_BYTES);
    }
  }
  return trace;
}

/** Clean, then heavy loss (the rate falls, the viewer moves down, UPTA cuts), then clean again. */
export const LOSS_EPISODE: readonly PathPhase[] = [
  { untilMs: 15_000, loss: { green: 0, yellow: 0, red: 0 } },
  { untilMs: 40_000, loss: { green: 0.6, yellow: 0.7, red: 0.7 } },
  { untilMs: 90_000, loss: { green: 0, yellow: 0, red: 0 } },
];
