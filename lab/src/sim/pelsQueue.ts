import { COLORS } from '@pels/shared/pels/color';
import { Fifo } from './fifo';
import type { TrafficClass } from './packet';

/**
 * The PELS bottleneck's queues (paper section 4.1, Fig. 4 left), without time:
 * a PELS queue served in strict priority green > yellow > red, and an
 * Internet queue, shared by weighted round robin; every queue is drop-tail
 * with a limit in packets. The link that drains it lives in bottleneck.ts.
 *
 * The round robin is deficit round robin (Shreedhar and Varghese, the
 * paper's [32]): plain packet WRR shares packets, not bytes, and the two
 * queues carry different packet sizes in general.
 */

export interface Queued {
  cls: TrafficClass;
  bytes: number;
}

export type QueueLimits = Readonly<Record<TrafficClass, number>>;

export interface PelsQueueParams {
  limits: QueueLimits;
  /** The Internet queue's share of the link under WRR, in (0, 1); the paper gives it 0.5. */
  internetShare: number;
  /** Largest packet: each queue's quantum per round covers at least one. */
  maxPacketBytes: number;
}

/** The lab's queue limits: 30 packets per PELS color, 100 for the Internet queue (the testbed sizes its queues from the link instead: e2e/src/net/pelsBottleneck.ts). */
export const DEFAULT_QUEUE_LIMITS: QueueLimits = { green: 30, yellow: 30, red: 30, internet: 100 };

type Side = 'pels' | 'internet';

export class PelsQueueModel<P extends Queued> {
  private readonly queues: Record<TrafficClass, Fifo<P>> = { green: new Fifo(), yellow: new Fifo(), red: new Fifo(), internet: new Fifo() };
  private readonly limits: QueueLimits;
  private readonly quantum: Record<Side, number>;
  private readonly deficit: Record<Side, number> = { pels: 0, internet: 0 };
  private turn: Side = 'pels';
  /** Whether the queue whose turn it is has had its quantum this round. */
  private granted = false;

  constructor(params: PelsQueueParams) {
    const { limits, internetShare, maxPacketBytes } = params;
    if (!(internetShare > 0 && internetShare < 1)) throw new RangeError(`internetShare must be in (0, 1); got ${internetShare}`);
    if (!(maxPacketBytes > 0)) throw new RangeError(`maxPacketBytes must be > 0; got ${maxPacketBytes}`);
    for (const [cls, limit] of Object.entries(limits)) {
      if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError(`queue limit of ${cls} must be a whole number >= 1; got ${limit}`);
    }
    this.limits = { ...limits };
    // Quanta in the ratio of the shares, the smaller one a full packet.
    const unit = maxPacketBytes / Math.min(internetShare, 1 - internetShare);
    this.quantum = { pels: unit * (1 - internetShare), internet: unit * internetShare };
  }

  /** Drop-tail: false (dropped) when the packet's queue is full. */
  enqueue(packet: P): boolean {
    const q = this.queues[packet.cls];
    if (q.length >= this.limits[packet.cls]) return false;
    q.push(packet);
    return true;
  }

  /** The next packet to transmit, or undefined when every queue is empty. */
  dequeue(): P | undefined {
    if (this.pelsLength() === 0 && this.queues.internet.length === 0) return undefined;
    for (;;) {
      const head = this.head(this.turn);
      if (head === undefined) {
        // An idle queue keeps no credit (DRR), so it cannot burst later.
        this.deficit[this.turn] = 0;
        this.nextTurn();
        continue;
      }
      if (!this.granted) {
        this.deficit[this.turn] += this.quantum[this.turn];
        this.granted = true;
      }
      if (head.bytes <= this.deficit[this.turn]) {
        this.deficit[this.turn] -= head.bytes;
        return this.turn === 'pels' ? this.shiftPels() : this.queues.internet.shift();
      }
      this.nextTurn();
    }
  }

  length(cls: TrafficClass): number {
    return this.queues[cls].length;
  }

  private pelsLength(): number {
    return this.queues.green.length + this.queues.yellow.length + this.queues.red.length;
  }

  /** Strict priority: a color is served only when every more important color is empty. */
  private pelsQueue(): Fifo<P> | undefined {
    for (const color of COLORS) if (this.queues[color].length > 0) return this.queues[color];
    return undefined;
  }

  private head(side: Side): P | undefined {
    return side === 'pels' ? this.pelsQueue()?.peek() : this.queues.internet.peek();
  }

  private shiftPels(): P | undefined {
    return this.pelsQueue()?.shift();
  }

  private nextTurn(): void {
    this.turn = this.turn === 'pels' ? 'internet' : 'pels';
    this.granted = false;
  }
}
