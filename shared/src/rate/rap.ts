/**
 * RAP, the Rate Adaptation Protocol (Rejaie, Handley, Estrin), as the ns-2
 * model has it: the rate is packet size / inter-packet gap (IPG); once per
 * smoothed RTT the rate grows by alpha packets per RTT, and a loss divides
 * it by 1 / beta, once per cluster of losses. Losses are found from ACKs
 * (a packet is lost once 3 later ones were acknowledged), from NACKs, or
 * when a packet is unacknowledged for longer than the timeout.
 */
import { FeedbackCounter, RateRange, assertValid, type ControllerFeedback, type RateBounds, type RateController } from './rateController';

export interface RapOptions extends RateBounds {
  packetBytes: number;
  /** Round-trip time assumed until the first ACK, ms. */
  initialRttMs: number;
  /** Packets per RTT added each RTT (ns-2: 1.0). */
  alpha: number;
  /** Multiplicative decrease (ns-2: 0.5). */
  beta: number;
  /** No increase unless the flow sent at least this percentage of what its IPG allowed in the last SRTT (ns-2: 50). */
  dpthresh: number;
  /**
   * Fine-grain adaptation: pace at IPG x short-term RTT / long-term RTT, so
   * a queue building (short RTT above long) slows the flow between steps.
   */
  fineGrain: boolean;
  /** Quantize the rate to multiples of this, kb/s (rate transitions of a layered coder); 0: off. */
  quantumKbps: number;
}

/** ns-2.35 rap defaults: alpha 1, beta 0.5, dpthresh 50, fine grain on. */
export const RAP_DEFAULTS = { alpha: 1, beta: 0.5, dpthresh: 50, fineGrain: true, quantumKbps: 0 } as const;

/** ns-2 RTT filter: delta 0.5, timeout = mu SRTT + phi VAR; fine-grain gains for the short and long RTT. */
const DELTA = 0.5;
const MU = 1.2;
const PHI = 4;
const K_FRTT = 0.9;
const K_XRTT = 0.01;
/** A packet is lost once the receiver got one this many sequence numbers later. */
const REORDER = 3;

interface Sent {
  sentAtMs: number;
  /** False once a back-off covered it: losses among packets sent before a back-off are the same congestion. */
  active: boolean;
}

export class RapController implements RateController {
  readonly name = 'rap';
  private readonly counter = new FeedbackCounter();
  private readonly range: RateRange;
  private readonly bits: number;
  private ipgMs: number;
  private srtt: number;
  private rttVar: number;
  private frtt: number;
  private xrtt: number;
  private measured = false;
  /** Unacknowledged packets by sequence number, in sending order. */
  private readonly history = new Map<number, Sent>();
  private sentThisStep = 0;
  private nextStepMs: number | undefined;

  constructor(private readonly options: RapOptions) {
    const errors: string[] = [];
    if (!(options.packetBytes > 0)) errors.push(`packetBytes must be > 0; got ${options.packetBytes}`);
    if (!(options.initialRttMs > 0)) errors.push(`initialRttMs must be > 0; got ${options.initialRttMs}`);
    if (!(options.alpha > 0)) errors.push(`alpha must be > 0; got ${options.alpha}`);
    if (!(options.beta > 0 && options.beta < 1)) errors.push(`beta must be in (0, 1); got ${options.beta}`);
    if (!(options.quantumKbps >= 0)) errors.push(`quantumKbps must be >= 0; got ${options.quantumKbps}`);
    assertValid('RAP parameters', errors);
    this.range = new RateRange(options.minKbps, options.maxKbps);
    this.bits = options.packetBytes * 8;
    this.ipgMs = this.bits / this.range.clamp(options.initialKbps);
    this.srtt = this.frtt = this.xrtt = options.initialRttMs;
    this.rttVar = options.initialRttMs / 2;
  }

  /** The pacing rate: packet bits over the (fine-grain scaled) IPG, clamped and quantized. */
  get rateKbps(): number {
    const base = this.bits / this.ipgMs;
    const rate = this.options.fineGrain ? (base * this.xrtt) / this.frtt : base;
    const q = this.options.quantumKbps;
    return this.range.clamp(q > 0 ? Math.floor(rate / q) * q : rate);
  }

  get rttMs(): number {
    return this.srtt;
  }

  get feedbackCounts(): { used: number; ignored: number } {
    return this.counter.counts;
  }

  /** Loss detection by timeout happens as packets are sent, as in ns-2. */
  onSent(seq: number, _bytes: number, atMs: number): void {
    this.history.set(seq, { sentAtMs: atMs, active: true });
    this.sentThisStep++;
    const timeout = MU * this.srtt + PHI * this.rttVar;
    const timedOut: number[] = [];
    for (const [s, p] of this.history) {
      if (p.sentAtMs + timeout > atMs) break;
      timedOut.push(s);
    }
    this.losses(timedOut, atMs);
  }

  onFeedback(ev: ControllerFeedback): void {
    switch (ev.kind) {
      case 'ack': {
        if (!(Number.isFinite(ev.atMs) && Number.isFinite(ev.sendTimeMs))) return this.counter.ignored();
        this.counter.used();
        this.sampleRtt(ev.atMs - ev.sendTimeMs);
        // Received: the ACKed packet and everything after the last hole; in the hole and 3 or more behind the newest: lost.
        const lost: number[] = [];
        for (const s of this.history.keys()) {
          if (s > ev.lastRecv) break;
          if (s === ev.seq || s > ev.lastMiss) this.history.delete(s);
          else if (s > ev.prevRecv && ev.lastRecv - s >= REORDER) lost.push(s);
        }
        this.losses(lost, ev.atMs);
        return;
      }
      case 'nack':
        this.counter.used();
        this.losses(ev.lostSeqs, ev.atMs);
        return;
      case 'rtt':
        this.counter.used();
        this.sampleRtt(ev.rttMs);
        return;
      default:
        this.counter.ignored();
    }
  }

  /** Once per SRTT: the additive increase, if the flow used at least dpthresh% of its rate. */
  onTimer(nowMs: number): number {
    if (this.nextStepMs === undefined) this.nextStepMs = nowMs + this.srtt;
    else if (nowMs >= this.nextStepMs) {
      if ((100 * this.sentThisStep * this.ipgMs) / this.srtt >= this.options.dpthresh) {
        this.ipgMs = this.clampIpg((this.ipgMs * this.srtt) / (this.options.alpha * this.ipgMs + this.srtt));
      }
      this.sentThisStep = 0;
      this.nextStepMs = nowMs + this.srtt;
    }
    return this.nextStepMs;
  }

  setBounds(minKbps: number, maxKbps: number): void {
    this.range.set(minKbps, maxKbps);
    this.ipgMs = this.clampIpg(this.ipgMs);
  }

  /** Backs off once if any of these packets was still active, then forgets them. */
  private losses(seqs: readonly number[], atMs: number): void {
    let backOff = false;
    for (const s of seqs) {
      const p = this.history.get(s);
      if (p?.active) backOff = true;
      this.history.delete(s);
    }
    if (!backOff) return;
    this.ipgMs = this.clampIpg(this.ipgMs / this.options.beta);
    for (const p of this.history.values()) p.active = false;
    this.sentThisStep = 0;
    this.nextStepMs = atMs + this.srtt;
  }

  private sampleRtt(sampleMs: number): void {
    if (!(Number.isFinite(sampleMs) && sampleMs > 0)) return;
    if (!this.measured) {
      this.measured = true;
      this.srtt = this.frtt = this.xrtt = sampleMs;
      this.rttVar = sampleMs / 2;
      return;
    }
    const d = sampleMs - this.srtt;
    this.srtt += DELTA * d;
    this.rttVar += DELTA * (Math.abs(d) - this.rttVar);
    this.frtt = (1 - K_FRTT) * this.frtt + K_FRTT * sampleMs;
    this.xrtt = (1 - K_XRTT) * this.xrtt + K_XRTT * sampleMs;
  }

  private clampIpg(ipgMs: number): number {
    return this.bits / this.range.clamp(this.bits / ipgMs);
  }
}
