/**
 * The one input of a viewer's control core: everything that can change what
 * it decides, each with the time it happened (the core keeps no clock).
 */
import type { Color } from '../pels/color';
import type { FrameInfo } from '../pels/frame';
import type { FlowModeName } from '../protocol/api';
import type { RateControllerName } from '../rate/registry';
import type { StreamStats } from './receiverReports';

/** One poll of the color streams' RTCP statistics (a stream not yet sending is absent). */
export interface ReceiverReportsInput {
  kind: 'receiver-reports';
  atMs: number;
  streams: Partial<Record<Color, StreamStats>>;
}

/** A router agent's eq. 11 sample for the path this viewer's media takes. */
export interface BottleneckFeedbackInput {
  kind: 'router-feedback';
  atMs: number;
  /** The router's sample counter z. */
  epoch: number;
  /** (R - C) / R: at most 1, negative below capacity. */
  lossFraction: number;
  /** The router's ID: epochs compare only within one router. */
  origin: string;
  /** When the traffic the sample measured was sent, ms. */
  sentAtMs?: number;
}

/** The stream's measured base rate (floor) and full rate (ceiling). */
export interface RateBoundsInput {
  kind: 'rate-bounds';
  atMs: number;
  minKbps: number;
  maxKbps: number;
}

/**
 * The viewer moves up to a rendition its rate was not measured for: on the
 * lower one it sends less than its rate allows, so the rate says nothing
 * about the link above that. The rate is raised to what the higher one needs
 * (never lowered) and feedback on it decides from there: a probe.
 */
export interface ProbeInput {
  kind: 'probe';
  atMs: number;
  kbps: number;
}

/** The flow mode in force changed (operator, or a path that cannot carry colors). */
export interface ModeInput {
  kind: 'mode';
  atMs: number;
  mode: FlowModeName;
}

/** The operator chose another rate controller for this viewer. */
export interface ControllerInput {
  kind: 'controller';
  atMs: number;
  controller: RateControllerName;
}

/** The rate of the viewer's sound (measured as sent): it shares the viewer's rate, so the video's frames fit the rest. */
export interface AudioRateInput {
  kind: 'audio-rate';
  atMs: number;
  kbps: number;
}

/** Only time passed: what is due now runs (a report wait that ran out, a controller's timer). */
export interface TickInput {
  kind: 'tick';
  atMs: number;
}

/**
 * A source frame's set, in encoder order: the frame of every rendition at the
 * same index (one with a single rendition). The core chooses the rendition and
 * decides whether its frame goes out, and on which color.
 */
export interface FramesInput {
  kind: 'frames';
  atMs: number;
  frames: readonly FrameInfo[];
}

/** Each rendition's measured base-layer and full rates, kb/s (null while unknown): what the rendition choice reads. */
export interface RenditionRatesInput {
  kind: 'rendition-rates';
  atMs: number;
  baseKbps: readonly (number | null)[];
  fullKbps: readonly (number | null)[];
}

/** The player pins a rendition (its quality menu), whatever the rate; 'auto' gives the choice back to the rate. */
export interface PinRenditionInput {
  kind: 'pin-rendition';
  atMs: number;
  rendition: number | 'auto';
}

export type ControlInput =
  | ReceiverReportsInput
  | BottleneckFeedbackInput
  | RateBoundsInput
  | RenditionRatesInput
  | ProbeInput
  | ModeInput
  | ControllerInput
  | AudioRateInput
  | PinRenditionInput
  | TickInput
  | FramesInput;
