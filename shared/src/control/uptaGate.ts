import type { Color } from '../pels/color';
import type { UptaStatus } from '../protocol/api';
import { StreamLossWindow } from '../upta/streamLoss';
import { ViewerGate, type ViewerGateParams } from '../upta/viewerGate';
import type { StreamStats } from './receiverReports';
import type { StreamContext } from './streamContext';

/** Loss is measured over this long: receiver reports come about once a second, and a few make a measure. */
const LOSS_WINDOW_MS = 4000;
/** Fewer packets in the window than this say too little to act on. */
const MIN_PACKETS = 20;

/**
 * A viewer's useless-packet avoidance (UPTA): its loss per stream over a
 * window, turned into the expected PSNR of each choice by its rendition's
 * model (asked of the stream), and the gate's decision of which color streams
 * go out. Pure: the core feeds it each stats poll with its time.
 */
export class UptaGate {
  private readonly gate: ViewerGate;
  private readonly losses = new StreamLossWindow(LOSS_WINDOW_MS, MIN_PACKETS);
  private fullDb: number | null = null;

  constructor(
    params: ViewerGateParams,
    private readonly context: StreamContext,
    nowMs: number,
  ) {
    this.gate = new ViewerGate(params, nowMs);
  }

  /** One poll of the viewer's RTCP statistics; returns whether the streams to send changed. */
  update(streams: Partial<Record<Color, StreamStats>>, rendition: number, rttMs: number | null, nowMs: number): boolean {
    this.losses.add(streams, nowMs);
    const loss = this.losses.frameLoss();
    const before = this.gate.sends;
    this.fullDb = loss ? this.context.expectedPsnr(rendition, 3, loss) : null;
    this.gate.update({
      nowMs,
      fullDb: this.fullDb,
      // The base layer alone, on the same path: the loss its own packets see.
      baseDb: loss ? this.context.expectedPsnr(rendition, 1, { base: loss.base, enhancement: loss.base }) : null,
      rttMs,
    });
    const after = this.gate.sends;
    const changed = before.base !== after.base || before.enhancement !== after.enhancement;
    // The counts so far describe the streams sent before.
    if (changed) this.losses.reset();
    return changed;
  }

  /** Whether the color's stream is to go out now. */
  allows(color: Color): boolean {
    const sends = this.gate.sends;
    return color === 'green' ? sends.base : sends.enhancement;
  }

  get status(): UptaStatus {
    const s = this.gate.current;
    const expectedDb = this.fullDb === null ? null : Math.round(this.fullDb * 10) / 10;
    return { state: s.state, since: new Date(s.sinceMs).toISOString(), reason: s.reason, probing: s.probing, expectedDb };
  }
}
