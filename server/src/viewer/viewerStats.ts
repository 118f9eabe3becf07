import type { types as ms } from 'mediasoup';
import type { ReceiverReportsInput } from '@pels/shared/control/input';
import { STATS_POLL_MS, type StreamStats } from '@pels/shared/control/receiverReports';
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { RtxState } from '@pels/shared/protocol/api';
import type { WorkerRequests } from '../sfu/workerRequests';

/** The repair counters of one consumer's stats (cumulative). */
type RepairCounts = Pick<ms.ConsumerStat, 'nackCount' | 'packetsRetransmitted' | 'pliCount' | 'firCount'>;

export interface ViewerStatsSources {
  consumers: ReadonlyMap<Color, ms.Consumer>;
  transport(): ms.WebRtcTransport | null;
  /** Bytes of media sent so far, per color. */
  sentBytes(): Record<Color, number>;
  /** Where each poll's RTCP statistics go (the viewer's control core). */
  onReports(input: ReceiverReportsInput): void;
  /** Whether the control core waits for reports: then every poll reads the consumers. */
  awaitingReports(): boolean;
  /** A poll that read no consumer: only the time passes for the control core. */
  onTick(atMs: number): void;
  /** The worker's requests, timed. */
  requests: Pick<WorkerRequests, 'timed'>;
}

/**
 * A viewer's stats polls. mediasoup's consumer stats change when a receiver
 * report arrives (about once a second per stream); every STATS_POLL_MS their
 * RTCP-derived counters go to the control core. The repair counters (NACKs,
 * retransmissions, PLIs, FIRs), the sent rate and the transport's
 * retransmitted bytes are kept for the viewer's state.
 *
 * Each poll reads the transport (one request); the three consumers only when
 * the viewer sent something since (its bytes received grew: RTCP, or an ICE
 * check) or while the control core waits for reports. Without a report the
 * consumers' stats change only in their packet counts, which the core uses
 * only while it waits; so it steps as it would on every poll, with a third
 * of the requests.
 */
export class ViewerStats {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private sentRate = { atMs: Date.now(), bytes: perColor(() => 0), kbps: perColor(() => 0) };
  private readonly repair: Partial<Record<Color, RepairCounts>> = {};
  /** Retransmitted bytes on the wire (the transport's RTX counter). */
  private rtxBytesSent = 0;
  /** The transport's bytes received at the last poll: a change is RTCP (or ICE) from the viewer. */
  private bytesReceived: number | null = null;
  /** A poll's requests are out: the worker has not answered them yet. */
  private polling = false;

  constructor(private readonly src: ViewerStatsSources) {}

  start(): void {
    if (!this.stopped) this.timer ??= setInterval(() => void this.pollUnlessPolling(), STATS_POLL_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Sent over the last second or so, kb/s. */
  get sentKbps(): number {
    const { kbps } = this.sentRate;
    return kbps.green + kbps.yellow + kbps.red;
  }

  /** Sent over the last second or so per color, kb/s. */
  get sentKbpsByColor(): Record<Color, number> {
    return this.sentRate.kbps;
  }

  /** The retransmission counters, with what the session knows of its streams and gate. */
  rtx(streams: Pick<RtxState, 'ssrcs' | 'repaired' | 'repairUnavailable'>): RtxState {
    const total = (f: (r: RepairCounts) => number) => COLORS.reduce((n, k) => n + (this.repair[k] ? f(this.repair[k]) : 0), 0);
    return { ...streams, nacksReceived: total((r) => r.nackCount), packetsSent: total((r) => r.packetsRetransmitted), bytesSent: this.rtxBytesSent };
  }

  /** PLIs and FIRs received per color. */
  keyframeRequests(): Record<Color, number> {
    return perColor((k) => (this.repair[k]?.pliCount ?? 0) + (this.repair[k]?.firCount ?? 0));
  }

  /**
   * One poll at a time. The polls share the worker's channel with every join's
   * requests; sent on a timer whatever the answers, they piled up by the
   * thousand once the worker fell behind, and the joins waited behind them.
   */
  private async pollUnlessPolling(): Promise<void> {
    if (this.polling) {
      this.src.onTick(Date.now());
      return;
    }
    this.polling = true;
    try {
      await this.poll();
    } finally {
      this.polling = false;
    }
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    const t = this.src.transport();
    const transport = t ? (await this.src.requests.timed('transport getStats', () => t.getStats()).catch(() => []))[0] : undefined;
    if (this.stopped) return;
    if (transport) this.rtxBytesSent = transport.rtxBytesSent ?? this.rtxBytesSent;
    const heard = transport?.bytesReceived !== this.bytesReceived || transport === undefined;
    this.bytesReceived = transport?.bytesReceived ?? null;
    if (heard || this.src.awaitingReports()) await this.readConsumers();
    else this.src.onTick(Date.now());
    const now = Date.now();
    if (now - this.sentRate.atMs >= 1000) {
      const bytes = this.src.sentBytes();
      const { atMs, bytes: before } = this.sentRate;
      this.sentRate = { atMs: now, bytes, kbps: perColor((k) => ((bytes[k] - before[k]) * 8) / (now - atMs)) };
    }
  }

  private async readConsumers(): Promise<void> {
    const streams: Partial<Record<Color, StreamStats>> = {};
    await Promise.all(
      [...this.src.consumers].map(async ([color, consumer]) => {
        const stats = await this.src.requests.timed('consumer getStats', () => consumer.getStats()).catch(() => []);
        const out = stats.find((x) => x.type === 'outbound-rtp');
        if (!out) return;
        const { packetCount, packetsLost, fractionLost, jitter, roundTripTime } = out;
        streams[color] = { packetCount, packetsLost, fractionLost, jitter, ...(roundTripTime !== undefined ? { roundTripTime } : {}) };
        this.repair[color] = out;
      }),
    );
    if (!this.stopped) this.src.onReports({ kind: 'receiver-reports', atMs: Date.now(), streams });
  }
}

function perColor(f: (k: Color) => number): Record<Color, number> {
  return { green: f('green'), yellow: f('yellow'), red: f('red') };
}
