/**
 * How the player allows for retransmission (NACK + RTX) and asks for keyframes
 * when it did not help. Pure: the caller passes the RTT and the time.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import { LAYER_PERIOD, type RetransmittedSlots } from './frameMerger';

/**
 * Upper bound of the retransmission wait. Past it a retransmission would cost
 * more display delay than a keyframe request costs a stall: on a long path the
 * player asks for a keyframe instead of waiting.
 */
export const MAX_RETRANSMISSION_WAIT_MS = 400;

/**
 * How much longer a missing retransmitted frame is waited for: one layer
 * period plus 1.5 RTT, at most MAX_RETRANSMISSION_WAIT_MS.
 * - The browser asks for a lost packet (NACK) when it sees the gap, at the next
 *   packet of the same stream. For the last packet of a base frame that is the
 *   next base frame, one layer period (4 frames, 133 ms at 30 fps) later; frames
 *   of the other colors arriving meanwhile do not reveal it. (Measured at 10%
 *   loss on green at full rate: this halves the broken base chains.)
 * - The retransmission then takes one round trip (the NACK out, the packet
 *   back); the half RTT on top covers the server's and the browser's
 *   processing and the jitter of both legs, so one retransmission makes it
 *   while a lost one (another round trip) does not hold every later frame.
 * Unknown RTT: the RTT part is 0 until it is measured.
 */
export function retransmissionWaitMs(rttMs: number | null, frameMs: number): number {
  const rtt = rttMs !== null && Number.isFinite(rttMs) && rttMs > 0 ? rttMs : 0;
  return Math.min(MAX_RETRANSMISSION_WAIT_MS, LAYER_PERIOD * frameMs + 1.5 * rtt);
}

/**
 * The merger's slots from the colors the server retransmits: green carries the
 * base layer (in PELS and in best effort alike), the others a mix of the rest.
 */
export function retransmittedSlots(colors: readonly Color[]): RetransmittedSlots {
  if (COLORS.every((c) => colors.includes(c))) return 'all';
  return colors.includes('green') ? 'base' : 'none';
}

/** Key-frame requests at most once per `minGapMs` while the player waits for a keyframe. */
export class KeyframeRequestThrottle {
  private lastMs = -Infinity;

  constructor(private readonly minGapMs = 500) {}

  /** Whether to send a request now; if so, it counts as sent. */
  take(nowMs: number): boolean {
    if (nowMs - this.lastMs < this.minGapMs) return false;
    this.lastMs = nowMs;
    return true;
  }
}
