import { COLORS, type Color } from '@pels/shared/pels/color';
import type { FlowModeName } from '@pels/shared/protocol/api';
import type { DscpMarker, DscpMarking } from '../net/dscpMarker';
import { dscpFor, rtxDscpFor } from './colorStreamRules';

/** The SSRCs a viewer's packets leave with: each color's media and RTX stream, and the sound's. */
export interface WireSsrcs {
  media: Record<Color, number>;
  rtx: Partial<Record<Color, number>>;
  audio: number | undefined;
}

/**
 * A viewer's DSCP marks in the kernel. Each color's media and RTX streams carry the mode's DSCP for that color
 * (a retransmission is as important as its original). The sound is green's (AF41 under PELS): the most protected
 * class the PELS router has, and it fits there since the rate counts it.
 */
export class DscpMarks {
  private marking: DscpMarking | null = null;

  constructor(
    private readonly marker: DscpMarker,
    /** Whether the viewer has closed meanwhile: a marking made then is removed at once. */
    private readonly closed: () => boolean,
  ) {}

  async mark(mode: FlowModeName, ssrcs: WireSsrcs): Promise<void> {
    const rules = COLORS.flatMap((k) => [{ ssrc: ssrcs.media[k], dscp: dscpFor(mode, k) }, ...(ssrcs.rtx[k] ? [{ ssrc: ssrcs.rtx[k], dscp: rtxDscpFor(mode, k) }] : [])]);
    if (ssrcs.audio) rules.push({ ssrc: ssrcs.audio, dscp: dscpFor(mode, 'green') });
    const marking = await this.marker.mark(rules);
    if (this.closed()) return void marking.remove();
    // A mode switch: the newer marking wins at once (one atomic change of the SSRCs' elements), so no packet goes unmarked;
    // removing the old one then changes nothing in the kernel.
    const previous = this.marking;
    this.marking = marking;
    await previous?.remove();
  }

  remove(): void {
    void this.marking?.remove();
  }
}
