import { ControlCore, type ControlCoreParams } from '@pels/shared/control/controlCore';
import type { BottleneckFeedbackInput } from '@pels/shared/control/input';
import type { StreamContext } from '@pels/shared/control/streamContext';
import { STATS_POLL_MS, type StreamStats } from '@pels/shared/control/receiverReports';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { EventQueue } from './eventQueue';
import type { ReceiverFeedback, ReceiverReport } from './receiver';

/**
 * A lab source's control core, fed as the server feeds a viewer's: router
 * feedback as it arrives; receiver reports by polling the sender's per-stream
 * stats (its own packet counts, the latest report's fields and the round trip
 * from it), as the server polls mediasoup's.
 */
export class SourceControl implements ReceiverFeedback {
  readonly core: ControlCore;
  private readonly latest: Partial<Record<Color, Omit<StreamStats, 'packetCount'>>> = {};

  constructor(
    params: ControlCoreParams,
    private readonly events: EventQueue,
    /** Packets sent so far per color. */
    private readonly sent: Readonly<Record<Color, number>>,
    /** The probe board shared with the other flows of the stream; absent: one of its own. */
    context?: StreamContext,
  ) {
    this.core = new ControlCore(params, context);
  }

  /** Starts polling when receiver reports drive the controllers (the lab sends none otherwise). */
  start(): void {
    if (this.core.params.feedback === 'rtcp') this.events.after(STATS_POLL_MS, () => this.poll());
  }

  router(input: BottleneckFeedbackInput): void {
    this.core.step(input);
  }

  report(report: ReceiverReport): void {
    const now = this.events.nowMs;
    for (const color of COLORS) {
      const b = report[color];
      if (b) this.latest[color] = { packetsLost: b.packetsLost, fractionLost: b.fractionLost, jitter: b.jitter, roundTripTime: now - b.echoSentAtMs - b.heldMs };
    }
  }

  private poll(): void {
    const streams: Partial<Record<Color, StreamStats>> = {};
    // A stream has stats once it sent a packet, before any report on it: zeros then.
    for (const color of COLORS) if (this.sent[color] > 0) streams[color] = { packetCount: this.sent[color], ...(this.latest[color] ?? { packetsLost: 0, fractionLost: 0, jitter: 0 }) };
    this.core.step({ kind: 'receiver-reports', atMs: this.events.nowMs, streams });
    this.events.after(STATS_POLL_MS, () => this.poll());
  }
}
