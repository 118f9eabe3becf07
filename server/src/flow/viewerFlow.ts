import type { Color } from '@pels/shared/pels/color';
import type { FlowDecision } from '@pels/shared/pels/flowPolicy';
import type { LayeredFrame } from '../layering/layeredFrame';
import { Vp8Packetizer } from '../rtp/vp8Packetizer';
import { SYNTHETIC_KEYFRAME } from '../rtp/syntheticKeyframe';

export interface ColorCounters {
  frames: number;
  packets: number;
  bytes: number;
}

export interface FlowCounters {
  byColor: Record<Color, ColorCounters>;
  framesByLayer: [number, number, number];
  /** Frames the policy did not send (over the rate, or a reference missing). */
  framesSkipped: number;
  syntheticKeyframes: number;
}

export interface OutgoingFrame {
  color: Color;
  packets: Buffer[];
}

/**
 * One viewer's outgoing media: packetizes each frame into the RTP stream of
 * the color its control decided (or counts it skipped). The three streams share the
 * PictureID and TL0PICIDX sequence so a receiver merging them sees one
 * temporally layered stream.
 */
export class ViewerFlow {
  private readonly packetizers: Record<Color, Vp8Packetizer>;
  private tl0PicIdx = Math.floor(Math.random() * 256);
  private lastPictureId = 0;
  private lastTimestamp: number;
  readonly counters: FlowCounters = {
    byColor: { green: zero(), yellow: zero(), red: zero() },
    framesByLayer: [0, 0, 0],
    framesSkipped: 0,
    syntheticKeyframes: 0,
  };

  constructor(
    readonly ssrcs: Readonly<Record<Color, number>>,
    payloadType: number,
    /** Random start of this viewer's RTP timestamps (RFC 3550). */
    private readonly timestampBase: number,
  ) {
    this.packetizers = {
      green: new Vp8Packetizer(ssrcs.green, payloadType),
      yellow: new Vp8Packetizer(ssrcs.yellow, payloadType),
      red: new Vp8Packetizer(ssrcs.red, payloadType),
    };
    this.lastTimestamp = timestampBase >>> 0;
  }

  /** `decision`: whether the frame goes out and on which color (the viewer's control core's, or the shared fan-out's layer). */
  onFrame(frame: LayeredFrame, decision: FlowDecision): OutgoingFrame | null {
    if (frame.temporalId === 0) this.tl0PicIdx = (this.tl0PicIdx + 1) & 0xff;
    this.lastPictureId = frame.index & 0x7fff;
    this.lastTimestamp = (this.timestampBase + frame.ticks) >>> 0;
    if (!decision.send) {
      this.counters.framesSkipped++;
      return null;
    }
    const packets = this.packetizers[decision.color].packetize({
      data: frame.data,
      timestamp: this.lastTimestamp,
      pictureId: this.lastPictureId,
      tl0PicIdx: this.tl0PicIdx,
      temporalId: frame.temporalId,
      layerSync: frame.layerSync,
      nonReference: frame.nonReference,
    });
    this.count(decision.color, packets);
    this.counters.framesByLayer[frame.temporalId]++;
    return { color: decision.color, packets };
  }

  /**
   * The tiny keyframe that opens mediasoup's keyframe gate on an enhancement
   * stream: it continues the stream's sequence numbers and carries an
   * off-grid timestamp so the player cannot mistake it for a source frame.
   */
  syntheticKeyframe(color: Color): Buffer[] {
    const packets = this.packetizers[color].packetize({
      data: SYNTHETIC_KEYFRAME,
      timestamp: (this.lastTimestamp + 1) >>> 0,
      pictureId: this.lastPictureId,
      tl0PicIdx: this.tl0PicIdx,
      temporalId: 0,
      layerSync: false,
      nonReference: false,
    });
    this.counters.syntheticKeyframes++;
    return packets;
  }

  private count(color: Color, packets: Buffer[]): void {
    const c = this.counters.byColor[color];
    c.frames++;
    c.packets += packets.length;
    for (const p of packets) c.bytes += p.length;
  }
}

function zero(): ColorCounters {
  return { frames: 0, packets: 0, bytes: 0 };
}
