import type { Color } from '@pels/shared/pels/color';
import type { StreamStats } from '@pels/shared/control/receiverReports';
import type { UptaStatus } from '@pels/shared/protocol/api';
import type { IntelligibilityModel } from '@pels/shared/upta/intelligibility';
import { StreamLossWindow } from '@pels/shared/upta/streamLoss';
import { ViewerGate, type ViewerGateParams } from '@pels/shared/upta/viewerGate';

/** Loss is measured over this long: receiver reports come about once a second, and a few make a measure. */
const LOSS_WINDOW_MS = 4000;
/** Fewer packets in the window than this say too little to act on. */
const MIN_PACKETS = 20;

export interface UptaOptions {
  params: ViewerGateParams;
  /** The expected-quality model of a rendition's PSNR table; null until the table has rows. */
  model(rendition: number): IntelligibilityModel | null;
}

/**
 * A viewer's useless-packet avoidance: its loss per stream over a window,
 * turned into the expected PSNR of each choice by its rendition's model, and
 * the gate's decision of which color streams go out. No I/O: the session
 * feeds it each stats poll and pauses or resumes its consumers when told.
 */
export class UptaGuard {
  private readonly gate: ViewerGate;
  private readonly losses = new StreamLossWindow(LOSS_WINDOW_MS, MIN_PACKETS);
  private fullDb: number | null = null;

  constructor(
    private readonly opts: UptaOptions,
    nowMs: number,
  ) {
    this.gate = new ViewerGate(opts.params, nowMs);
  }

  /** One poll of the viewer's RTCP statistics; returns whether the streams to send changed. */
  update(streams: Partial<Record<Color, StreamStats>>, rendition: number, rttMs: number | null, nowMs: number): boolean {
    this.losses.add(streams, nowMs);
    const loss = this.losses.frameLoss();
    const model = this.opts.model(rendition);
    const before = this.gate.sends;
    this.fullDb = loss && model ? model.expectedPsnr(3, loss) : null;
    this.gate.update({
      nowMs,
      fullDb: this.fullDb,
      // The base layer alone, on the same path: the loss its own packets see.
      baseDb: loss && model ? model.expectedPsnr(1, { base: loss.base, enhancement: loss.base }) : null,
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
