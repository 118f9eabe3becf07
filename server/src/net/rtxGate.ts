/**
 * Lets a viewer's retransmissions through by color, while it plays. mediasoup
 * fixes at consume whether a consumer retransmits (and the player's receiver
 * with it), so a viewer is consumed with RTX on every color and the RTX
 * packets of the colors not repaired now are held back in the kernel: they
 * carry an SSRC of their own, and holding one back is a map element on the
 * DSCP marker (HELD_BACK below: red's drop precedence). Only UDP is gated: over ICE-TCP nothing is lost
 * on the way, so nothing is asked for again.
 */
import { COLORS, DSCP, type Color } from '@pels/shared/pels/color';
import type { DscpMarker, DscpMarking } from './dscpMarker';

/**
 * What a held-back retransmission gets: red's drop precedence, not a drop.
 * A netfilter drop answers the sender's sendmsg with EPERM; mediasoup then
 * queues its packets in libuv, whose sendmmsg batch fails whole on that
 * error, so up to 20 media packets queued behind a dropped retransmission
 * were lost with it (10 synthetic viewers behind a PELS router read 1.1% of
 * green and 10% of yellow lost at the receivers and none at the router, in 2
 * runs of 3; with this mark, none). A bottleneck that honours the marks drops
 * red first; a silent drop (at the egress qdisc, whose drops UDP does not
 * report) is the way back to holding them back everywhere.
 */
const HELD_BACK = DSCP.red;

export class RtxGate {
  /** The drop marking in the kernel, and the colors it drops. */
  private marking: DscpMarking | null = null;
  private dropping: readonly Color[] = [];
  /** The colors to drop, as last asked for. */
  private wanted: readonly Color[] = [];
  /** The change running; changes asked for meanwhile follow it. */
  private applying: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly marker: DscpMarker,
    /** The RTX SSRC of each color consumed with retransmission. */
    private readonly rtxSsrcs: Partial<Record<Color, number>>,
  ) {}

  /** Colors whose retransmissions pass now: as the kernel has it, not as last asked for. */
  get passing(): Color[] {
    return COLORS.filter((c) => this.rtxSsrcs[c] !== undefined && !this.dropping.includes(c));
  }

  /**
   * Lets these colors' retransmissions pass and drops the others'. Resolves once
   * the kernel has it, or the change failed (the marker logs it; the next call tries again).
   */
  open(colors: readonly Color[]): Promise<void> {
    this.wanted = COLORS.filter((c) => this.rtxSsrcs[c] !== undefined && !colors.includes(c));
    if (!this.applying && !this.settled()) this.applying = this.apply();
    return this.applying ?? Promise.resolve();
  }

  /** Removes the drops (the viewer is gone). Idempotent. */
  close(): void {
    this.closed = true;
    void this.marking?.remove();
    this.marking = null;
    this.dropping = [];
  }

  private settled(): boolean {
    return this.closed || this.wanted.join() === this.dropping.join();
  }

  /** Runs only while unsettled, so its first step awaits: `applying` is set before it ends. */
  private async apply(): Promise<void> {
    while (!this.settled()) {
      const drop = this.wanted;
      // The new drops in first, the old ones out after: a color dropped by both is never let through in between.
      const next = drop.length ? await this.marker.mark(drop.map((c) => ({ ssrc: this.rtxSsrcs[c]!, dscp: HELD_BACK }))) : null;
      if (this.closed) {
        await next?.remove();
        break;
      }
      if (next && !this.marker.status.enabled) break;
      const previous = this.marking;
      this.marking = next;
      this.dropping = drop;
      await previous?.remove();
    }
    this.applying = null;
  }
}
