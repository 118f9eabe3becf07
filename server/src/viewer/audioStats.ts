/**
 * A viewer's sound as the server sends it: the audio consumer's counters,
 * polled once a second, its sent rate over the last poll (which the control
 * core counts in the viewer's rate), and the loss the player's receiver
 * reports give.
 */
import type { types as ms } from 'mediasoup';
import type { AudioState } from '@pels/shared/protocol/api';

const POLL_MS = 1000;

export class AudioStats {
  private timer: NodeJS.Timeout | null = null;
  /** One poll at a time, as the viewer's other stats: polls sent whatever the answers pile up on a busy worker's channel. */
  private polling = false;
  private last: { atMs: number; bytes: number } | null = null;
  private current: AudioState;

  constructor(
    private readonly consumer: ms.Consumer,
    private readonly onRate: (kbps: number, atMs: number) => void,
  ) {
    const encoding = consumer.rtpParameters.encodings?.[0];
    this.current = {
      ssrc: encoding?.ssrc ?? 0,
      rtxSsrc: encoding?.rtx?.ssrc ?? null,
      kbps: 0,
      packetsSent: 0,
      packetsLost: 0,
      fractionLost: 0,
      nackCount: 0,
      packetsRetransmitted: 0,
    };
  }

  get state(): AudioState {
    return this.current;
  }

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      void this.poll().finally(() => (this.polling = false));
    }, POLL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    const out = (await this.consumer.getStats().catch(() => [])).find((x) => x.type === 'outbound-rtp');
    if (!out || !this.timer) return;
    const now = Date.now();
    const kbps = this.last && now > this.last.atMs ? ((out.byteCount - this.last.bytes) * 8) / (now - this.last.atMs) : 0;
    this.last = { atMs: now, bytes: out.byteCount };
    this.current = {
      ...this.current,
      kbps,
      packetsSent: out.packetCount,
      packetsLost: out.packetsLost,
      // RTCP's fraction lost is in 1/256 (mediasoup passes it as received).
      fractionLost: out.fractionLost / 256,
      nackCount: out.nackCount,
      packetsRetransmitted: out.packetsRetransmitted,
    };
    this.onRate(kbps, now);
  }
}
