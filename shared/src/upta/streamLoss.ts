/**
 * A viewer's loss per color stream over a sliding window, from the cumulative
 * counters its control core keeps (packets sent, packets the receiver reports
 * lost): what the server-side UPTA gate measures. Pure.
 */
import type { Color } from '../pels/color';
import type { ColorState } from '../protocol/api';
import type { FrameLoss } from './intelligibility';

type Counters = Pick<ColorState, 'packetsSent' | 'packetsLost'>;

interface Sample {
  atMs: number;
  perColor: Record<Color, Counters>;
}

export class StreamLossWindow {
  private samples: Sample[] = [];

  constructor(
    private readonly windowMs: number,
    /** Fewer packets sent in the window than this: not measured. */
    private readonly minPackets: number,
  ) {
    if (!(windowMs > 0)) throw new RangeError(`window must be > 0 ms; got ${windowMs}`);
  }

  add(perColor: Record<Color, Counters>, nowMs: number): void {
    this.samples.push({ atMs: nowMs, perColor });
    // Keep one sample at or before the window's start, to measure the whole window.
    while (this.samples.length > 2 && this.samples[1]!.atMs <= nowMs - this.windowMs) this.samples.shift();
  }

  /** Forget what was measured: the streams sent change, and the old counts describe the old set. */
  reset(): void {
    this.samples = [];
  }

  /** Base (green) and enhancement (yellow and red pooled) loss over the window; null for what was not measured. */
  loss(): { base: number | null; enhancement: number | null } {
    return { base: this.ratio(['green']), enhancement: this.ratio(['yellow', 'red']) };
  }

  /** The frame loss to put in the model: an unmeasured enhancement loss counts as the base's. */
  frameLoss(): FrameLoss | null {
    const { base, enhancement } = this.loss();
    if (base === null) return null;
    return { base, enhancement: enhancement ?? base };
  }

  private ratio(colors: readonly Color[]): number | null {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || first === last) return null;
    let sent = 0;
    let lost = 0;
    for (const k of colors) {
      sent += last.perColor[k].packetsSent - first.perColor[k].packetsSent;
      lost += last.perColor[k].packetsLost - first.perColor[k].packetsLost;
    }
    if (sent < this.minPackets) return null;
    return Math.min(1, Math.max(0, lost / sent));
  }
}
