import type { ControlCoreParams } from '@pels/shared/control/controlCore';
import type { StreamContext } from '@pels/shared/control/streamContext';
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
 * EnhancementColoring makes the gamma share red). With several renditions
 * (each a list of frames at the same times, the top one first) the core
 * chooses among them as it does a server viewer's, and a rendition's next
 * frame becomes a keyframe when the core asks for one. A sent frame leaves as
 * a burst of packets of at most packetBytes, like the server's packetizer.
 */
export class FrameSource implements PelsSource {
  private readonly packets: Packetizer;
  private next = 0;
  private readonly asked: boolean[];
  readonly control: SourceControl;

  /** out: each packet, with the index of the frame it carries. */
  constructor(
    flow: number,
    control: ControlCoreParams,
    private readonly events: EventQueue,
    private readonly renditions: readonly (readonly SyntheticFrame[])[],
    private readonly packetBytes: number,
    out: (packet: Packet, frameIndex: number) => void,
    context?: StreamContext,
  ) {
    this.packets = new Packetizer(flow, events, (p) => out(p, this.next - 1));
    this.control = new SourceControl(control, events, this.packets.sent, context);
    this.asked = renditions.map(() => false);
  }

  get sent(): Record<Color, number> {
    return this.packets.sent;
  }

  start(): void {
    if (this.renditions.length > 1) this.stepRenditionRates();
    this.control.start();
    this.scheduleNext(this.events.nowMs);
  }

  /** Each rendition's base and full rates, as the server's meters give them, and the floor at the lowest one's base. */
  private stepRenditionRates(): void {
    const durationMs = this.renditions[0]!.at(-1)!.atMs + this.renditions[0]![1]!.atMs;
    const kbps = (frames: readonly SyntheticFrame[]) => (frames.reduce((n, f) => n + f.bytes, 0) * 8) / durationMs;
    const baseKbps = this.renditions.map((r) => kbps(r.filter((f) => f.temporalId === 0)));
    const atMs = this.events.nowMs;
    this.control.core.step({ kind: 'rendition-rates', atMs, baseKbps, fullKbps: this.renditions.map(kbps) });
    this.control.core.step({ kind: 'rate-bounds', atMs, minKbps: baseKbps.at(-1)!, maxKbps: this.control.core.params.control.mkc.maxKbps });
  }

  private scheduleNext(startMs: number): void {
    const at = this.renditions[0]![this.next]?.atMs;
    if (at === undefined) return;
    this.events.at(startMs + at, () => {
      const frames = this.renditions.map((r, i) => {
        const f = r[this.next]!;
        // An asked keyframe is as large as the rendition's first.
        if (!this.asked[i]) return f;
        this.asked[i] = false;
        return { ...f, keyframe: true, temporalId: 0 as const, bytes: r[0]!.bytes };
      });
      this.next++;
      const { decision, keyframeRequest } = this.control.core.step({ kind: 'frames', atMs: this.events.nowMs, frames });
      if (keyframeRequest !== null) this.asked[keyframeRequest] = true;
      const frame = frames[decision!.rendition]!;
      const d = decision!.frame!;
      if (d.send) {
        for (let left = frame.bytes; left > 0; left -= this.packetBytes) this.packets.emit(d.color, Math.min(left, this.packetBytes));
      }
      this.scheduleNext(startMs);
    });
  }
}
