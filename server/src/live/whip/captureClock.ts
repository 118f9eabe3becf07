/**
 * A WHIP publisher's capture times, from the abs-capture-time RTP header
 * extension: the publisher's NTP clock (UQ32.32 seconds since 1900) when the
 * frame was captured. Senders write it now and then (libwebrtc: when a
 * receiver could no longer work it out from the RTP timestamps, about once a
 * second), so a frame's capture time is the last one written moved by the
 * RTP timestamps since. The publisher's clock is taken as the server's (the
 * extension's own clock-offset estimate is for a relay's use, and a first hop
 * sends none). Pure.
 */
const NTP_EPOCH_OFFSET_S = 2_208_988_800;

export class CaptureClock {
  private anchor: { rtp: number; ms: number } | null = null;

  constructor(private readonly clockRate: number) {}

  /** A packet with RTP timestamp `rtp` and this extension value (8 bytes, or 16 with the offset estimate). */
  note(rtp: number, value: Buffer | undefined): void {
    if (!value || value.length < 8) return;
    const ms = (value.readUInt32BE(0) - NTP_EPOCH_OFFSET_S) * 1000 + (value.readUInt32BE(4) / 2 ** 32) * 1000;
    this.anchor = { rtp, ms };
  }

  /** The capture time (epoch ms) of the frame with RTP timestamp `rtp`; undefined before the publisher wrote one. */
  captureMs(rtp: number): number | undefined {
    if (!this.anchor) return undefined;
    // The 32-bit timestamps' difference, signed.
    const ticks = (rtp - this.anchor.rtp) | 0;
    return this.anchor.ms + (ticks * 1000) / this.clockRate;
  }
}
