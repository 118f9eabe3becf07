import type { EventQueue } from './eventQueue';
import { transmissionMs } from './links';
import type { Packet, RouterLabel, TrafficClass } from './packet';
import { PelsQueueModel, type QueueLimits } from './pelsQueue';
import { Bins } from './stats';

export interface BottleneckParams {
  id: string;
  /** Bottleneck link rate, kb/s (paper: 4 mb/s). */
  capacityKbps: number;
  /** Bottleneck propagation delay, ms. */
  delayMs: number;
  /** WRR share of the Internet queue (paper: 0.5). */
  internetShare: number;
  limits: QueueLimits;
  /** The router agent's interval T, ms (paper: 30 ms). */
  feedbackIntervalMs: number;
  maxPacketBytes: number;
  /** Width of the statistics bins, ms. */
  binMs: number;
}

/** Per class: packets offered, dropped, and the queueing delay of those sent, per time bin. */
export interface ClassStats {
  arrivals: Bins;
  drops: Bins;
  /** Waiting time from arrival to the start of transmission, ms, binned by departure time. */
  delayMs: Bins;
}

/**
 * The bottleneck router of Fig. 6: the PELS and Internet queues drain into
 * one link, and the router agent (section 5.2, eq. 11) measures the bytes
 * offered to the PELS queue every T, computes p = (R - C)/R with C the PELS
 * share of the link, and labels every PELS packet it queues with
 * (router ID, epoch z, p). Labelling on arrival is what makes labels
 * reorder in the priority queues, hence the epoch.
 */
export class Bottleneck {
  readonly stats: Record<TrafficClass, ClassStats>;
  /** p(k) at each interval that saw traffic. */
  readonly feedback: Array<{ atMs: number; epoch: number; p: number }> = [];
  private readonly queue: PelsQueueModel<Packet>;
  /** The capacity C of eq. 11: the PELS queue's WRR share, which it gets whenever the Internet queue is busy. */
  private readonly pelsCapacityKbps: number;
  private busy = false;
  private offeredBytes = 0;
  private epoch = 0;
  private label: RouterLabel | undefined;

  constructor(
    private readonly events: EventQueue,
    private readonly params: BottleneckParams,
    private readonly deliver: (packet: Packet) => void,
  ) {
    if (!(params.capacityKbps > 0)) throw new RangeError(`capacityKbps must be > 0; got ${params.capacityKbps}`);
    if (!(params.feedbackIntervalMs > 0)) throw new RangeError(`feedbackIntervalMs must be > 0; got ${params.feedbackIntervalMs}`);
    this.queue = new PelsQueueModel({ limits: params.limits, internetShare: params.internetShare, maxPacketBytes: params.maxPacketBytes });
    this.pelsCapacityKbps = params.capacityKbps * (1 - params.internetShare);
    const classStats = (): ClassStats => ({ arrivals: new Bins(params.binMs), drops: new Bins(params.binMs), delayMs: new Bins(params.binMs) });
    this.stats = { green: classStats(), yellow: classStats(), red: classStats(), internet: classStats() };
    this.events.after(params.feedbackIntervalMs, () => this.measure());
  }

  receive(packet: Packet): void {
    const now = this.events.nowMs;
    const stats = this.stats[packet.cls];
    stats.arrivals.add(now);
    if (packet.cls !== 'internet') {
      // Offered bytes, dropped or not: counting only accepted ones would cap R near C and hide the overload.
      this.offeredBytes += packet.bytes;
      if (this.label) packet.label = this.label;
    }
    if (!this.queue.enqueue(packet)) {
      stats.drops.add(now);
      return;
    }
    packet.enqueuedAtMs = now;
    if (!this.busy) this.transmitNext();
  }

  private transmitNext(): void {
    const packet = this.queue.dequeue();
    if (!packet) {
      this.busy = false;
      return;
    }
    this.busy = true;
    const now = this.events.nowMs;
    this.stats[packet.cls].delayMs.add(now, now - (packet.enqueuedAtMs ?? now));
    const done = now + transmissionMs(packet.bytes, this.params.capacityKbps);
    this.events.at(done, () => this.transmitNext());
    this.events.at(done + this.params.delayMs, () => this.deliver(packet));
  }

  /** Eq. 11, once every T. An interval without traffic measures nothing (R = 0), so the label stays as it was. */
  private measure(): void {
    const T = this.params.feedbackIntervalMs;
    if (this.offeredBytes > 0) {
      const rateKbps = (this.offeredBytes * 8) / T;
      const p = (rateKbps - this.pelsCapacityKbps) / rateKbps;
      this.epoch++;
      this.label = { routerId: this.params.id, epoch: this.epoch, p };
      this.feedback.push({ atMs: this.events.nowMs, epoch: this.epoch, p });
    }
    this.offeredBytes = 0;
    this.events.after(T, () => this.measure());
  }
}

/** Loss of a set of classes over [fromMs, toMs): drops / arrivals. */
export function classLoss(stats: Record<TrafficClass, ClassStats>, classes: readonly TrafficClass[], fromMs: number, toMs: number): number | undefined {
  let arrivals = 0;
  let drops = 0;
  for (const cls of classes) {
    arrivals += stats[cls].arrivals.total(fromMs, toMs).sum;
    drops += stats[cls].drops.total(fromMs, toMs).sum;
  }
  return arrivals > 0 ? drops / arrivals : undefined;
}
