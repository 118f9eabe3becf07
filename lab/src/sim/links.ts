import type { EventQueue } from './eventQueue';
import { Fifo } from './fifo';
import type { Packet } from './packet';

export interface LinkParams {
  rateKbps: number;
  /** One-way propagation delay, ms. */
  delayMs: number;
  /** Drop-tail limit, in packets waiting or in transmission. */
  limitPackets: number;
}

/**
 * A FIFO point-to-point link (the access links of Fig. 6): a packet waits for
 * the ones ahead of it, takes bytes*8/rate to transmit and delayMs to
 * propagate. Packets do not overtake each other.
 */
export class Link<P extends { bytes: number } = Packet> {
  /** Transmission end times of the packets still in the link's queue. */
  private readonly pending = new Fifo<number>();
  private busyUntilMs = 0;
  dropped = 0;

  constructor(
    private readonly events: EventQueue,
    private readonly params: LinkParams,
    private readonly deliver: (packet: P) => void,
  ) {
    if (!(params.rateKbps > 0)) throw new RangeError(`link rate must be > 0; got ${params.rateKbps}`);
    if (!(params.delayMs >= 0)) throw new RangeError(`link delay must be >= 0; got ${params.delayMs}`);
  }

  send(packet: P): void {
    const now = this.events.nowMs;
    while ((this.pending.peek() ?? Number.POSITIVE_INFINITY) <= now) this.pending.shift();
    if (this.pending.length >= this.params.limitPackets) {
      this.dropped++;
      return;
    }
    const start = Math.max(now, this.busyUntilMs);
    this.busyUntilMs = start + transmissionMs(packet.bytes, this.params.rateKbps);
    this.pending.push(this.busyUntilMs);
    this.events.at(this.busyUntilMs + this.params.delayMs, () => this.deliver(packet));
  }
}

/** Time to put `bytes` on a link of `kbps`, ms (bits / (kbit/s) = ms). */
export function transmissionMs(bytes: number, kbps: number): number {
  return (bytes * 8) / kbps;
}
