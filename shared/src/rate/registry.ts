/**
 * Every rate controller by name, with defaults, so a stream or a viewer can
 * pick one by a string (configuration, API, URL parameter).
 */
import { MKC_PAPER_GAINS, type MkcParams } from '../pels/mkc';
import { FUZZY_DEFAULTS, FuzzyController } from './fuzzy';
import { AIMD_PARAMS, IIAD_PARAMS, ISCC_PARAMS, IncreaseDecreaseController, SQRT_PARAMS, binomialLaw, isccLaw } from './increaseDecrease';
import { MkcRateController } from './mkcRate';
import { RAP_DEFAULTS, RapController } from './rap';
import type { ControllerFeedbackKind, RateBounds, RateController } from './rateController';
import { TfrcController } from './tfrc';

import { parseRateControllerName, RATE_CONTROLLER_NAMES, rateControllerNameSchema, type RateControllerName } from './names';

export { RATE_CONTROLLER_NAMES, rateControllerNameSchema, type RateControllerName };

/** What every controller is built from; only the bounds are required. */
export interface ControllerSetup extends RateBounds {
  /** Packet size the window-based laws and TFRC's equation count in, bytes. Default 1000. */
  packetBytes?: number;
  /** Round trip assumed until one is measured, ms. Default 100. */
  initialRttMs?: number;
  /** Bottleneck capacity, kb/s, for ISCC; default maxKbps (any tight upper bound on the rate works). */
  capacityKbps?: number;
  /** MKC's gains and start-up; default the paper's gains, no start-up. */
  mkc?: Omit<MkcParams, 'initialKbps' | 'minKbps' | 'maxKbps'>;
}

export interface RateControllerEntry {
  name: RateControllerName;
  description: string;
  /** The feedback kinds it acts on (others are ignored). */
  feedback: readonly ControllerFeedbackKind[];
  create(setup: ControllerSetup): RateController;
}

export const DEFAULT_PACKET_BYTES = 1000;
export const DEFAULT_INITIAL_RTT_MS = 100;

const bounds = (s: ControllerSetup): RateBounds => ({ initialKbps: s.initialKbps, minKbps: s.minKbps, maxKbps: s.maxKbps });
const idOptions = (s: ControllerSetup) => ({ ...bounds(s), initialRttMs: s.initialRttMs ?? DEFAULT_INITIAL_RTT_MS, capacityKbps: s.capacityKbps });
const INCREASE_DECREASE_FEEDBACK = ['nack', 'rtt', 'rtcp', 'router'] as const;

export const RATE_CONTROLLERS: Readonly<Record<RateControllerName, RateControllerEntry>> = {
  mkc: {
    name: 'mkc',
    description: 'Max-min Kelly control (PELS eq. 8): r + alpha - beta r p per fresh loss or router feedback; alpha 20 kb/s, beta 0.5',
    feedback: ['rtcp', 'router'],
    create: (s) => new MkcRateController({ ...MKC_PAPER_GAINS, ...s.mkc, ...bounds(s) }),
  },
  aimd: {
    name: 'aimd',
    description: 'AIMD as TCP: +1 packet per RTT each RTT, halve on loss',
    feedback: INCREASE_DECREASE_FEEDBACK,
    create: (s) => new IncreaseDecreaseController('aimd', binomialLaw(AIMD_PARAMS, s.packetBytes ?? DEFAULT_PACKET_BYTES), idOptions(s)),
  },
  iiad: {
    name: 'iiad',
    description: 'binomial IIAD (k = 1, l = 0): inverse increase, additive decrease, TCP-friendly',
    feedback: INCREASE_DECREASE_FEEDBACK,
    create: (s) => new IncreaseDecreaseController('iiad', binomialLaw(IIAD_PARAMS, s.packetBytes ?? DEFAULT_PACKET_BYTES), idOptions(s)),
  },
  sqrt: {
    name: 'sqrt',
    description: 'binomial SQRT (k = l = 0.5), TCP-friendly',
    feedback: INCREASE_DECREASE_FEEDBACK,
    create: (s) => new IncreaseDecreaseController('sqrt', binomialLaw(SQRT_PARAMS, s.packetBytes ?? DEFAULT_PACKET_BYTES), idOptions(s)),
  },
  iscc: {
    name: 'iscc',
    description: 'ideally-scalable congestion control (k = -1.1, l = 1.2, m_D = 1.2, m_I = 24): loss about constant whatever the number of flows; needs the capacity',
    feedback: INCREASE_DECREASE_FEEDBACK,
    create: (s) => new IncreaseDecreaseController('iscc', isccLaw(ISCC_PARAMS), idOptions(s)),
  },
  tfrc: {
    name: 'tfrc',
    description: 'TFRC (RFC 3448): the TCP throughput equation from the receiver-reported loss event rate, with oscillation avoidance',
    feedback: ['receiver-report'],
    create: (s) => new TfrcController({ ...bounds(s), packetBytes: s.packetBytes ?? DEFAULT_PACKET_BYTES, oscillationAvoidance: true }),
  },
  rap: {
    name: 'rap',
    description: 'RAP: +1 packet per SRTT each SRTT, halve once per loss cluster, fine-grain RTT smoothing',
    feedback: ['ack', 'nack', 'rtt'],
    create: (s) => new RapController({ ...bounds(s), ...RAP_DEFAULTS, packetBytes: s.packetBytes ?? DEFAULT_PACKET_BYTES, initialRttMs: s.initialRttMs ?? DEFAULT_INITIAL_RTT_MS }),
  },
  fuzzy: {
    name: 'fuzzy',
    description: 'fuzzy-logic control from packet dispersion every 40 ms, with a 5% safety margin; no loss input',
    feedback: ['dispersion'],
    create: (s) => new FuzzyController(bounds(s), FUZZY_DEFAULTS),
  },
};

/** The controller called `name`, or a RangeError listing the names there are. */
export function createRateController(name: string, setup: ControllerSetup): RateController {
  return RATE_CONTROLLERS[parseRateControllerName(name)].create(setup);
}
