/**
 * Receiver-driven layered multicast (RLM): a receiver joins and leaves a
 * layered stream's layers itself, one group per layer, from the loss it
 * measures; the sender takes no part. It adds a layer when its join timer
 * fires (a join experiment), drops the top layer when loss follows an
 * experiment or persists, and learns: a failed experiment doubles that
 * layer's join timer, a quiet period relaxes it. Experiments are announced to
 * the other receivers of the session, which then blame loss on them rather
 * than on their own level (shared learning).
 *
 * Pure: the caller passes time in, runs `tick` at `nextWakeMs`, reports each
 * packet (layer, per-layer sequence number) and applies the subscription.
 * States: S steady, H hysteresis (loss seen, wait before measuring), M
 * measurement (count loss over at least W packets), D just dropped.
 */

export interface RlmParams {
  /** Number of layers the stream has. */
  layers: number;
  /** Drop the top layer when more than this share of the packets since entering M were lost... */
  lossThreshold: number;
  /** ... and at least this many were received (the measurement window W). */
  windowPackets: number;
  /** Join-timer backoff factor after a failed experiment. */
  backoff: number;
  /** Join-timer relaxation factor after a quiet detection period. */
  relax: number;
  /** Initial join timer of every layer, and its floor, ms. */
  initialJoinMs: number;
  maxJoinMs: number;
  /** Initial detection time T_D and its deviation, ms. */
  initialDetectMs: number;
  initialDetectVarMs: number;
  /** EWMA gains of T_D and its deviation. */
  detectGain: number;
  detectVarGain: number;
}

export const RLM_DEFAULTS: Omit<RlmParams, 'layers'> = {
  lossThreshold: 0.25,
  windowPackets: 10,
  backoff: 2,
  relax: 0.75,
  initialJoinMs: 5000,
  maxJoinMs: 60_000,
  initialDetectMs: 5000,
  initialDetectVarMs: 2000,
  detectGain: 0.25,
  detectVarGain: 0.25,
};

export type RlmState = 'S' | 'H' | 'M' | 'D';

/** An exponential draw with mean m, redrawn until below 4m. */
export function truncatedExp(meanMs: number, random: () => number): number {
  for (;;) {
    const x = -meanMs * Math.log(1 - random());
    if (x < 4 * meanMs) return x;
  }
}

export class RlmReceiver {
  state: RlmState = 'S';
  /** Layers subscribed (1..layers; 0 after dropping the base layer). */
  subscription = 1;
  /** Join timer per layer (index 1..layers), ms. */
  readonly joinTimerMs: number[];
  detectMs: number;
  detectVarMs: number;
  private readonly joinTs: (number | undefined)[];
  private readonly pendingTs: (number | undefined)[];
  private addTs: number | undefined;
  private detectAt: number | undefined;
  private joinAt: number;
  private readonly nextSeq: (number | undefined)[];
  private received = 0;
  private lost = 0;
  private snapshot = { received: 0, lost: 0 };
  /** Packets of the top layer since it was joined: an experiment waits for the top layer to flow. */
  private topLayerPackets = 0;
  /** Layers added and dropped, for statistics. */
  adds = 0;
  drops = 0;

  constructor(
    private readonly p: RlmParams,
    private readonly random: () => number,
    nowMs: number,
    /** An experiment this receiver starts, for the other receivers of the session. */
    private readonly announce: (layer: number) => void = () => {},
  ) {
    if (!(p.layers >= 1)) throw new RangeError(`layers must be >= 1; got ${p.layers}`);
    if (!(p.windowPackets >= 1)) throw new RangeError(`measurement window must be >= 1 packet; got ${p.windowPackets}`);
    this.joinTimerMs = new Array<number>(p.layers + 2).fill(p.initialJoinMs);
    this.joinTs = new Array<number | undefined>(p.layers + 2).fill(undefined);
    this.pendingTs = new Array<number | undefined>(p.layers + 2).fill(undefined);
    this.nextSeq = new Array<number | undefined>(p.layers + 2).fill(undefined);
    this.detectMs = p.initialDetectMs;
    this.detectVarMs = p.initialDetectVarMs;
    this.joinAt = nowMs + this.joinDelay();
  }

  /** Packets received and lost (sequence gaps) on the subscribed layers so far. */
  get packetsReceived(): number {
    return this.received;
  }

  get packetsLost(): number {
    return this.lost;
  }

  /** When `tick` must run next, ms. */
  get nextWakeMs(): number {
    return Math.min(this.joinAt, this.detectAt ?? Number.POSITIVE_INFINITY);
  }

  /** A packet of `layer` (1-based) with that layer's sequence number arrived. */
  onPacket(layer: number, seq: number, nowMs: number): void {
    if (layer < 1 || layer > this.subscription) return;
    const expected = this.nextSeq[layer];
    this.nextSeq[layer] = seq + 1;
    this.received++;
    if (layer === this.subscription) this.topLayerPackets++;
    if (expected !== undefined && seq > expected) {
      this.lost += seq - expected;
      this.onLoss(nowMs);
    }
  }

  /**
   * Packets counted on `layer` since the last report, for receivers that see
   * counters (WebRTC stats) rather than each packet: any loss is a loss event.
   */
  onReport(layer: number, received: number, lost: number, nowMs: number): void {
    if (layer < 1 || layer > this.subscription) return;
    this.received += received;
    if (layer === this.subscription) this.topLayerPackets += received;
    if (lost > 0) {
      this.lost += lost;
      this.onLoss(nowMs);
    }
  }

  /** Another receiver of the session started a join experiment at `layer`. */
  onAnnounce(layer: number, nowMs: number): void {
    this.joinTs[layer] = nowMs;
    if (layer > this.subscription) this.pendingTs[layer] = nowMs;
  }

  /** Runs the timers that are due. */
  tick(nowMs: number): void {
    if (this.detectAt !== undefined && nowMs >= this.detectAt) {
      this.detectAt = undefined;
      this.onDetectTimer(nowMs);
    }
    if (nowMs >= this.joinAt) this.onJoinTimer(nowMs);
  }

  /** The loss ratio since entering M (lost / (lost + received)). */
  private measuredLoss(): { received: number; ratio: number } {
    const received = this.received - this.snapshot.received;
    const lost = this.lost - this.snapshot.lost;
    return { received, ratio: lost + received > 0 ? lost / (lost + received) : 0 };
  }

  private recent(ts: number | undefined, nowMs: number): boolean {
    return ts !== undefined && ts + this.detectMs + 2 * this.detectVarMs > nowMs;
  }

  private onLoss(nowMs: number): void {
    if (this.state === 'M') {
      const m = this.measuredLoss();
      if (m.received >= this.p.windowPackets && m.ratio > this.p.lossThreshold) {
        this.detectAt = undefined;
        this.dropLayer(nowMs);
      }
      return;
    }
    if (this.state !== 'S') return;
    this.detectAt = undefined;
    let n = 0;
    for (let k = this.p.layers; k >= 1; k--) {
      if (this.recent(this.pendingTs[k], nowMs)) {
        n = k;
        break;
      }
    }
    if (n > 0) {
      // A join experiment at layer n caused this: back its timer off, and peg the layers above.
      this.joinTimerMs[n] = Math.min(this.p.backoff * this.joinTimerMs[n]!, this.p.maxJoinMs);
      for (let k = n + 1; k <= this.p.layers; k++) this.joinTimerMs[k] = Math.max(this.joinTimerMs[k]!, this.joinTimerMs[n]!);
      if (n === this.subscription) {
        const d = nowMs - this.pendingTs[n]!;
        const v = Math.abs(d - this.detectMs);
        this.detectMs = (1 - this.p.detectGain) * this.detectMs + this.p.detectGain * d;
        this.detectVarMs = (1 - this.p.detectVarGain) * this.detectVarMs + this.p.detectVarGain * v;
        this.dropLayer(nowMs);
        return;
      }
      if (n === this.subscription + 1) this.joinAt = nowMs + this.joinDelay();
    }
    if (this.recent(this.addTs, nowMs)) this.enterMeasurement(nowMs);
    else {
      this.state = 'H';
      this.detectAt = nowMs + this.conservativeMs();
    }
  }

  private onDetectTimer(nowMs: number): void {
    if (this.state === 'H') this.enterMeasurement(nowMs);
    else if (this.state === 'D' || this.state === 'M') {
      this.state = 'S';
      this.detectAt = nowMs + this.conservativeMs();
    } else {
      // A quiet detection period at this level: experiments to the next one get likelier.
      const k = this.subscription;
      if (k >= 1) this.joinTimerMs[k] = Math.max(this.p.relax * this.joinTimerMs[k]!, this.p.initialJoinMs);
      this.detectAt = nowMs + this.conservativeMs();
    }
  }

  private onJoinTimer(nowMs: number): void {
    const next = this.subscription + 1;
    let recentJoin = false;
    for (let k = 1; k <= this.subscription; k++) if (this.recent(this.joinTs[k], nowMs)) recentJoin = true;
    const topFlowing = this.subscription === 0 || this.topLayerPackets > 0;
    if (this.state === 'S' && !recentJoin && topFlowing && next <= this.p.layers) {
      this.subscription = next;
      this.adds++;
      this.topLayerPackets = 0;
      this.nextSeq[next] = undefined;
      this.joinTs[next] = this.pendingTs[next] = this.addTs = nowMs;
      this.announce(next);
    }
    this.joinAt = nowMs + this.joinDelay();
  }

  private enterMeasurement(nowMs: number): void {
    this.state = 'M';
    this.snapshot = { received: this.received, lost: this.lost };
    this.detectAt = nowMs + this.detectMs + (this.subscription / 2 + 1.5) * this.detectVarMs;
  }

  private dropLayer(nowMs: number): void {
    if (this.subscription > 0) {
      this.nextSeq[this.subscription] = undefined;
      this.subscription--;
      this.drops++;
      this.topLayerPackets = 1; // the layer below has been flowing
    }
    this.state = 'D';
    this.detectAt = nowMs + this.conservativeMs();
  }

  private conservativeMs(): number {
    return this.detectMs + 1.5 * this.detectVarMs;
  }

  private joinDelay(): number {
    const tj = this.joinTimerMs[Math.min(this.subscription + 1, this.p.layers)]!;
    return tj / 2 + truncatedExp(tj, this.random);
  }
}
