import { COLORS, type Color } from '../pels/color';
import type { FeedbackEvent, FeedbackKind } from '../pels/feedback';
import type { FlowDecision, FlowPolicy } from '../pels/flowPolicy';
import type { ColorState, CongestionState, FlowModeName } from '../protocol/api';
import { boundsErrors } from '../rate/rateController';
import type { RateControllerName } from '../rate/registry';
import { CONGESTION_DEFAULTS, type CongestionParams } from './congestionEstimator';
import { ControlLoop, type ControlLoopParams, type ControlState } from './controlLoop';
import type { ControlInput } from './input';
import { policyFor } from './modePolicy';
import { ReceiverReportTracker, type StreamStats } from './receiverReports';

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

export interface ControlOutput {
  /** For a frame input: whether it goes out and on which color; null for every other input. */
  decision: FlowDecision | null;
  state: ControlSnapshot;
}

/**
 * One viewer's control, whole and pure: the receiver-report tracker turns
 * RTCP statistics into feedback events (congestion, with wire loss taken out), the control loop steps the rate
 * controller and gamma on them (or on router feedback), and the mode's flow
 * policy decides each frame from the rate and gamma. Everything comes in
 * through step(), with its time; the server feeds it from mediasoup and the
 * router agent, the lab from its event queue, a test from a recording.
 */
export class ControlCore {
  private readonly reports: ReceiverReportTracker;
  private readonly loop: ControlLoop;
  private mode: FlowModeName;
  private policy: FlowPolicy;
  private lossP: number | null = null;
  private feedbackSteps = 0;
  /** The viewer's sound, counted in its rate: frame selection fits the rate minus this. */
  private audioKbps = 0;
  /** What the flow policy reads: the loop's gamma, and its rate less the sound's. */
  private readonly video: ControlState;
  /** Built when asked for and kept until something it shows may have changed (frames change none of it). */
  private snapshot: ControlSnapshot | null = null;

  constructor(readonly params: ControlCoreParams) {
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
  }

  step(input: ControlInput): ControlOutput {
    if (this.loop.onTime(input.atMs)) this.snapshot = null;
    if (input.kind === 'frame') return { decision: this.policy.decide(input.frame, input.atMs), state: this.state };
    this.snapshot = null;
    switch (input.kind) {
      case 'receiver-reports':
        this.onReports(input.streams, input.atMs);
        break;
      case 'tick':
        // A stream that owes a report may have run out of time.
        this.onReports({}, input.atMs);
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
    }
    return { decision: null, state: this.state };
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

  private onReports(streams: Partial<Record<Color, StreamStats>>, atMs: number): void {
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
