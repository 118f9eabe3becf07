/**
 * A viewer's loss per color stream over a sliding window, from the RTCP
 * statistics each stats poll reads (what the server-side UPTA gate measures).
 * A stream's counts are taken at its receiver reports only (a report is a
 * change of the report's fields), so packets sent since the last report are
 * not counted as received; a stream that carried packets and has been silent
 * for `silentMs` counts them as lost, since a receiver reports only on
 * streams it heard from. Pure.
 */
import { COLORS, type Color } from '../pels/color';
import { reportSignature, type StreamStats } from '../control/receiverReports';
import type { FrameLoss } from './intelligibility';

interface Point {
  atMs: number;
  sent: number;
  lost: number;
}

interface PerColor {
  signature: string;
  /** At each report (and each silent stretch), oldest first. */
  points: Point[];
}

export class StreamLossWindow {
  private colors: Record<Color, PerColor> = fresh();

  constructor(
    private readonly windowMs: number,
    /** Fewer packets sent in the window than this: not measured. */
    private readonly minPackets: number,
    private readonly silentMs = 2000,
  ) {
    if (!(windowMs > 0)) throw new RangeError(`window must be > 0 ms; got ${windowMs}`);
  }

  add(streams: Partial<Record<Color, StreamStats>>, nowMs: number): void {
    for (const k of COLORS) {
      const s = streams[k];
      const c = this.colors[k];
      if (!s) continue;
      const signature = reportSignature(s);
      const last = c.points.at(-1);
      if (signature !== c.signature) {
        c.signature = signature;
        // Lost counts from this report on: the first one only sets the base.
        c.points.push({ atMs: nowMs, sent: s.packetCount, lost: s.packetsLost });
      } else if (last && s.packetCount > last.sent && nowMs - last.atMs >= this.silentMs) {
        // Silent while packets went out: they count as lost, and not again when a report comes.
        c.points.push({ atMs: nowMs, sent: s.packetCount, lost: last.lost + (s.packetCount - last.sent) });
      }
      // Keep one point at or before the window's start, to measure the whole window.
      while (c.points.length > 2 && c.points[1]!.atMs <= nowMs - this.windowMs) c.points.shift();
    }
  }

  /** Forget what was measured: the streams sent change, and the old counts describe the old set. */
  reset(): void {
    this.colors = fresh();
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
    let sent = 0;
    let lost = 0;
    for (const k of colors) {
      const points = this.colors[k].points;
      const first = points[0];
      const last = points.at(-1);
      if (!first || !last || first === last) continue;
      sent += last.sent - first.sent;
      lost += last.lost - first.lost;
    }
    if (sent < this.minPackets) return null;
    return Math.min(1, Math.max(0, lost / sent));
  }
}

function fresh(): Record<Color, PerColor> {
  const one = (): PerColor => ({ signature: '', points: [] });
  return { green: one(), yellow: one(), red: one() };
}
