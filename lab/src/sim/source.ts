import type { ControlCoreParams } from '@pels/shared/control/controlCore';
import type { Color } from '@pels/shared/pels/color';
import type { SyntheticFrame } from '@pels/shared/pels/syntheticStream';
import type { EventQueue } from './eventQueue';
import type { Packet } from './packet';
import { SourceControl } from './sourceControl';

/** What the network sees of a PELS source: it sends packets and hears feedback (through its control). */
export interface PelsSource {
  readonly control: SourceControl;
  /** Packets sent per color. */
  readonly sent: Record<Color, number>;
  start(): void;
}

/** Numbers packets per color, as the three RTP streams do, so the receiver can count gaps. */
class Packetizer {
  readonly sent: Record<Color, number> = { green: 0, yellow: 0, red: 0 };

  constructor(
    private readonly flow: number,
    private readonly events: EventQueue,
    private readonly out: (packet: Packet) => void,
  ) {}

  emit(color: Color, bytes: number): void {
    const seq = this.sent[color]++;
    this.out({ flow: this.flow, cls: color, bytes, seq, sentAtMs: this.events.nowMs });
  }
}

/** Rounds a stream of real counts to integers whose running total never drifts by a whole unit. */
class CarryRounder {
  private carry = 0;

  next(x: number): number {
    const total = this.carry + x;
    const n = Math.floor(total + 1e-9);
    this.carry = total - n;
    return n;
  }
}

export interface FgsParams {
  fps: number;
  /** Base layer rate, kb/s: always sent, green. */
  baseKbps: number;
  packetBytes: number;
}

/**
 * The paper's source (sections 4.2 and 6.1): an FGS stream sent at the MKC
 * rate r as evenly paced packets. Each frame interval's packets are the base
 * layer (green) then the enhancement bytes x_i the rate allows, lower
 * (1 - gamma) x_i yellow and upper gamma x_i red (Fig. 4 right). Rate and
 * gamma are read from the product's control core; the frame plan is fixed at
 * the frame's start and pacing follows the current rate, so a rate change
 * mid-frame adds or cuts packets at the top of the frame, as FGS would.
 */
export class FgsSource implements PelsSource {
  private readonly packets: Packetizer;
  private readonly greenPerFrame = new CarryRounder();
  private readonly enhancementPerFrame = new CarryRounder();
  private readonly redPerFrame = new CarryRounder();
  private plan = { green: 0, yellow: 0 };
  private index = 0;
  readonly control: SourceControl;

  constructor(
    flow: number,
    control: ControlCoreParams,
    private readonly events: EventQueue,
    private readonly params: FgsParams,
    out: (packet: Packet) => void,
  ) {
    if (!(params.fps > 0 && params.baseKbps > 0 && params.packetBytes > 0)) throw new RangeError('fps, baseKbps and packetBytes must be > 0');
    this.packets = new Packetizer(flow, events, out);
    this.control = new SourceControl(control, events, this.packets.sent);
  }

  get sent(): Record<Color, number> {
    return this.packets.sent;
  }

  start(): void {
    this.control.start();
    this.startFrame();
    this.sendNext();
  }

  private packetsPerFrame(kbps: number): number {
    return (kbps * 1000) / this.params.fps / (8 * this.params.packetBytes);
  }

  private startFrame(): void {
    const { rateKbps: rate, gamma } = this.control.core.state;
    const green = this.greenPerFrame.next(this.packetsPerFrame(Math.min(rate, this.params.baseKbps)));
    const enhancement = this.enhancementPerFrame.next(this.packetsPerFrame(Math.max(0, rate - this.params.baseKbps)));
    const red = Math.min(enhancement, this.redPerFrame.next(gamma * enhancement));
    this.plan = { green, yellow: enhancement - red };
    this.index = 0;
    this.events.after(1000 / this.params.fps, () => this.startFrame());
  }

  private sendNext(): void {
    const i = this.index++;
    const color: Color = i < this.plan.green ? 'green' : i < this.plan.green + this.plan.yellow ? 'yellow' : 'red';
    this.packets.emit(color, this.params.packetBytes);
    this.events.after((this.params.packetBytes * 8) / this.control.core.state.rateKbps, () => this.sendNext());
  }
}

/**
 * The product's source: encoder-shaped frames (pattern 0,2,1,2) decided by
 * the server's own control core (in PELS mode FrameSelector fits the rate,
 * EnhancementColoring makes the gamma share red). A sent frame leaves as a
 * burst of packets of at most packetBytes, like the server's packetizer.
 */
export class FrameSource implements PelsSource {
  private readonly packets: Packetizer;
  private next = 0;
  readonly control: SourceControl;

  /** out: each packet, with the index of the frame it carries. */
  constructor(
    flow: number,
    control: ControlCoreParams,
    private readonly events: EventQueue,
    private readonly frames: readonly SyntheticFrame[],
    private readonly packetBytes: number,
    out: (packet: Packet, frameIndex: number) => void,
  ) {
    this.packets = new Packetizer(flow, events, (p) => out(p, this.next - 1));
    this.control = new SourceControl(control, events, this.packets.sent);
  }

  get sent(): Record<Color, number> {
    return this.packets.sent;
  }

  start(): void {
    this.control.start();
    this.scheduleNext(this.events.nowMs);
  }

  private scheduleNext(startMs: number): void {
    const frame = this.frames[this.next];
    if (!frame) return;
    this.events.at(startMs + frame.atMs, () => {
      this.next++;
      const decision = this.control.core.step({ kind: 'frame', atMs: this.events.nowMs, frame }).decision!;
      if (decision.send) {
        for (let left = frame.bytes; left > 0; left -= this.packetBytes) this.packets.emit(decision.color, Math.min(left, this.packetBytes));
      }
      this.scheduleNext(startMs);
    });
  }
}
