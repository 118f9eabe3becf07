import type { Color } from '@pels/shared/pels/color';
import { Pacer, type PacerDelay } from '@pels/shared/pels/pacer';
import type { PacketSink } from '../sfu/packetSink';
import type { Drainable, PacerClock } from './pacerClock';

/** What a viewer's pacer did, for its state. */
export interface PacingSnapshot {
  /** The rate packets leave at now, kb/s. */
  kbps: number;
  backlogBytes: number;
  /** Frames sent and how long they waited in the pacer (arrival to their last packet), over the session. */
  delay: PacerDelay;
}

/**
 * A flow's packets on their way to its producers, paced (shared/src/pels/pacer.ts):
 * what the budget allows goes at once, the rest on the stream's shared ticker.
 */
export class PacedSender implements Drainable {
  private readonly pacer = new Pacer<Buffer>();
  private readonly out = (color: Color, packet: Buffer) => this.sinks[color].send(packet);
  private closed = false;

  constructor(
    private readonly sinks: Readonly<Record<Color, PacketSink>>,
    private readonly clock: PacerClock,
  ) {}

  /** The target rate the pacing rate is a multiple of: what the flow's control lets it send, kb/s. */
  setTargetKbps(kbps: number): void {
    this.pacer.setTargetKbps(kbps);
  }

  /** One frame's packets (or a synthetic keyframe's) on one color. */
  send(color: Color, packets: readonly Buffer[]): void {
    if (this.closed) return;
    this.pacer.send(color, packets, this.clock.now(), this.out);
    if (this.pacer.backlogBytes > 0) this.clock.wait(this);
  }

  drain(nowMs: number): boolean {
    if (this.closed) return false;
    this.pacer.drain(nowMs, this.out);
    return this.pacer.backlogBytes > 0;
  }

  get snapshot(): PacingSnapshot {
    return { kbps: this.pacer.pacingKbps, backlogBytes: this.pacer.backlogBytes, delay: { ...this.pacer.delay } };
  }

  /** What waits is dropped with the producers it was for. */
  close(): void {
    this.closed = true;
    this.clock.forget(this);
  }
}
