import { COLORS, type Color } from '../pels/color';
import type { FeedbackEvent, FeedbackKind } from '../pels/feedback';
import type { FlowDecision, FlowPolicy } from '../pels/flowPolicy';
import { RENDITION_POLICY_DEFAULTS, type RenditionPolicyParams } from '../pels/renditionPolicy';
import type { FrameInfo } from '../pels/frame';
import { mulberry32 } from '../pels/syntheticStream';
import type { ColorState, CongestionState, FlowModeName, RenditionState, UptaStatus } from '../protocol/api';
import { boundsErrors } from '../rate/rateController';
import type { RateControllerName } from '../rate/registry';
import { CONGESTION_DEFAULTS, type CongestionParams } from './congestionEstimator';
import { ControlLoop, type ControlLoopParams, type ControlState } from './controlLoop';
import type { ControlInput } from './input';
import { flowMode, policyFor } from './flowMode';
import { ReceiverReportTracker, type StreamStats } from './receiverReports';
import { RenditionSwitch } from './renditionSwitch';
import { streamContext, type StreamContext } from './streamContext';
import { UptaGate } from './uptaGate';
import type { ViewerGateParams } from '../upta/viewerGate';

export interface ControlCoreParams {
  /** Names this viewer's receiver-report epochs (like an SSRC), so they compare only with each other. */
  origin: string;
  control: ControlLoopParams;
  /** Which feedback steps the controllers; the other kind is still measured, not acted on. */
  feedback: FeedbackKind;
  /** The flow mode in force at the start. */
  mode: FlowModeName;
  /** The congestion estimate's parameters, where not the defaults. */
  congestion?: Partial<CongestionParams>;
  /** When the viewer joined, ms: the rendition choice's first dwell and UPTA's first state start there. */
  startMs: number;
  /** Seeds the core's random draws (the rendition choice's dwell jitter), so a replay draws the same. */
  seed: number;
  /** The stream's renditions and when the viewer moves between them; absent: one rendition. */
  renditions?: { count: number; policy: RenditionPolicyParams };
  /** Useless-packet avoidance (UPTA=on): the gate's parameters; absent: off. */
  upta?: ViewerGateParams;
}

/** What the core knows, for the viewer's state, charts and metrics. */
export interface ControlSnapshot {
  controller: RateControllerName;
  mode: FlowModeName;
  rateKbps: number;
  gamma: number;
  /** The p of the last control step; null before the first. */
  lossP: number | null;
  /** How the receiver reports' loss is read: congestion (what RTCP feedback steps on) against wire loss. */
  congestion: CongestionState;
  /** Control steps taken (fresh feedback of the kind that steps). */
  feedbackSteps: number;
  /** The latest round trip the receiver reports gave, ms. */
  rttMs: number | null;
  /** A start-up phase (MKC's) is still on. */
  startup: boolean;
  perColor: Record<Color, ColorState>;
}

/** What the core decided of a frame set. */
export interface FramesDecision {
  /** The rendition whose frame the viewer gets. */
  rendition: number;
  /** Whether that frame goes out, and on which color; null when the set holds none of that rendition. */
  frame: FlowDecision | null;
}

export interface ControlOutput {
  /** For a frame set: the rendition and its frame's decision; null for every other input. */
  decision: FramesDecision | null;
  /** A rendition whose encoder is to make a keyframe (the viewer moves to it at its keyframe); null: none. */
  keyframeRequest: number | null;
  /** The color streams UPTA lets out, when they changed at this step; null: unchanged. */
  colors: Color[] | null;
  state: ControlSnapshot;
}

/**
 * One viewer's control, whole and pure: the receiver-report tracker turns
 * RTCP statistics into feedback events (congestion, with wire loss taken out), the control loop steps the rate
 * controller and gamma on them (or on router feedback), the rendition choice
 * picks the rendition from the rate (or the player's pin), UPTA's gate which
 * color streams go out from the loss, and the mode's flow policy decides each
 * frame from the rate and gamma. Everything comes in through step(), with its
 * time; the randomness is seeded by the parameters, and what it asks of the
 * stream (the probe board, the PSNR model) goes through its context. The
 * server feeds it from mediasoup and the router agent, the lab from its event
 * queue, a test from a recording.
 */
export class ControlCore {
  private readonly reports: ReceiverReportTracker;
  private readonly loop: ControlLoop;
  private readonly renditions: RenditionSwitch;
  private readonly upta: UptaGate | null;
  private mode: FlowModeName;
  private policy: FlowPolicy;
  private lossP: number | null = null;
  private feedbackSteps = 0;
  /** The viewer's sound, counted in its rate: frame selection fits the rate minus this. */
  private audioKbps = 0;
  /** What the flow policy reads: the loop's gamma, and its rate less the sound's. */
  private readonly video: ControlState;
  /** Built when asked for and kept until something it shows may have changed (frames change none of it unless they probe). */
  private snapshot: ControlSnapshot | null = null;

  /** `context`: the stream's probe board and PSNR models; absent: a board of the viewer's own and no models. */
  constructor(
    readonly params: ControlCoreParams,
    context: StreamContext = streamContext(params.renditions ? { policy: params.renditions.policy } : {}),
  ) {
    this.reports = new ReceiverReportTracker(params.origin, { ...CONGESTION_DEFAULTS, ...params.congestion });
    this.loop = new ControlLoop(params.control);
    this.mode = params.mode;
    const loop = this.loop;
    const core = this;
    this.video = {
      get rateKbps() {
        return Math.max(0, loop.rateKbps - core.audioKbps);
      },
      get gamma() {
        return loop.gamma;
      },
    };
    this.policy = policyFor(params.mode, this.video);
    const { count, policy } = params.renditions ?? { count: 1, policy: RENDITION_POLICY_DEFAULTS };
    this.renditions = new RenditionSwitch(count, policy, mulberry32(params.seed), context.board, params.startMs);
    this.upta = params.upta ? new UptaGate(params.upta, context, params.startMs) : null;
  }

  step(input: ControlInput): ControlOutput {
    if (this.loop.onTime(input.atMs)) this.snapshot = null;
    if (input.kind === 'frames') return this.onFrames(input.frames, input.atMs);
    this.snapshot = null;
    let colors: Color[] | null = null;
    switch (input.kind) {
      case 'receiver-reports':
        colors = this.onReports(input.streams, input.atMs);
        break;
      case 'tick':
        // A stream that owes a report may have run out of time.
        this.track({}, input.atMs);
        break;
      case 'router-feedback': {
        const { epoch, lossFraction, atMs, origin, sentAtMs } = input;
        this.onFeedback({ kind: 'router', epoch, lossFraction, atMs, origin, ...(sentAtMs !== undefined ? { sentAtMs } : {}) });
        break;
      }
      case 'rate-bounds':
        // Until the base layer is measured its rate can read 0: no controller can run from a floor of 0, so such bounds wait for the next.
        if (boundsErrors(input.minKbps, input.maxKbps).length === 0) this.loop.setRateBounds(input.minKbps, input.maxKbps, input.atMs);
        break;
      case 'probe':
        this.loop.probe(input.kbps, input.atMs);
        break;
      case 'mode':
        // A new policy on the same loop: rate and gamma go on. Its fresh frame selector assumes no GOLDEN update was sent yet,
        // which the next TID 1 frame (a sync point) or keyframe restores, so no frame goes out without its reference.
        if (input.mode !== this.mode) {
          this.mode = input.mode;
          this.policy = policyFor(input.mode, this.video);
        }
        break;
      case 'controller':
        this.loop.useController(input.controller, input.atMs);
        break;
      case 'audio-rate':
        this.audioKbps = Math.max(0, input.kbps);
        break;
      case 'rendition-rates':
        this.renditions.setRates(input.baseKbps, input.fullKbps);
        break;
      case 'pin-rendition':
        this.renditions.pin(input.rendition);
        break;
    }
    return { decision: null, keyframeRequest: null, colors, state: this.state };
  }

  /** Where the viewer's own keyframe requests (join, a broken base chain) go: the rendition it is moving to, else the one it gets. */
  get keyframeRendition(): number {
    return this.renditions.keyframeRendition;
  }

  /** Whether UPTA lets the color's stream out now (always under rlm, where the player chooses its layers). */
  allows(color: Color): boolean {
    return flowMode(this.mode).receiverDriven || (this.upta?.allows(color) ?? true);
  }

  /** UPTA's state; null when it is off or the viewer chooses its own layers (rlm). */
  get uptaStatus(): UptaStatus | null {
    return this.upta && !flowMode(this.mode).receiverDriven ? this.upta.status : null;
  }

  /** The rendition choice's state, its time per rendition counted up to nowMs. */
  renditionState(nowMs: number): RenditionState {
    return this.renditions.state(nowMs);
  }

  /** The receiver-report tracker waits for reports (see ReceiverReportTracker.awaitingReports). */
  get awaitingReports(): boolean {
    return this.reports.awaitingReports;
  }

  get state(): ControlSnapshot {
    this.snapshot ??= {
      controller: this.loop.controller,
      mode: this.mode,
      rateKbps: this.loop.rateKbps,
      gamma: this.loop.gamma,
      lossP: this.lossP,
      congestion: this.reports.congestion,
      feedbackSteps: this.feedbackSteps,
      rttMs: this.reports.rtt,
      startup: this.loop.inStartup,
      perColor: Object.fromEntries(COLORS.map((k) => [k, this.reports.colorState(k)])) as Record<Color, ColorState>,
    };
    return this.snapshot;
  }

  /** The rendition of the set, and its frame's decision; a move up probes the rate first, so the frame is decided at the raised rate. */
  private onFrames(frames: readonly FrameInfo[], atMs: number): ControlOutput {
    const { rateKbps, startup } = this.state;
    const step = this.renditions.next(frames.map((f) => f.keyframe), rateKbps, !startup, atMs);
    if (step.probeKbps !== null) {
      this.loop.probe(step.probeKbps, atMs);
      this.snapshot = null;
    }
    const frame = frames[step.rendition];
    const decision = { rendition: step.rendition, frame: frame ? this.policy.decide(frame, atMs) : null };
    return { decision, keyframeRequest: step.keyframeRequest, colors: null, state: this.state };
  }

  /** A stats poll: the controllers, then the rendition choice on a fresh step, then UPTA; the colors UPTA lets out when they changed. */
  private onReports(streams: Partial<Record<Color, StreamStats>>, atMs: number): Color[] | null {
    const before = this.feedbackSteps;
    this.track(streams, atMs);
    // Under RTCP feedback a fresh report steps the controller: green's loss beyond the wire's says whether the base layer fits.
    if (this.feedbackSteps !== before) this.renditions.onFeedback(this.lossP ?? 0, this.reports.congestion.baseCongestion);
    // An rlm viewer chooses its own layers.
    if (!this.upta || flowMode(this.mode).receiverDriven || !this.upta.update(streams, this.renditions.current, this.reports.rtt, atMs)) return null;
    return COLORS.filter((c) => this.allows(c));
  }

  /** The receiver-report tracker, and the controllers on the feedback event it makes of the poll. */
  private track(streams: Partial<Record<Color, StreamStats>>, atMs: number): void {
    const ev = this.reports.update(streams, atMs);
    if (!ev) return;
    const rtt = this.reports.rtt;
    if (rtt !== null) this.loop.onRtt(rtt, atMs);
    this.onFeedback(ev);
  }

  private onFeedback(ev: FeedbackEvent): void {
    if (ev.kind !== this.params.feedback || this.loop.onFeedback(ev) !== 'fresh') return;
    this.lossP = ev.lossFraction;
    this.feedbackSteps++;
  }
}
