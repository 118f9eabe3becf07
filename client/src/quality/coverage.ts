/**
 * Layer coverage, frame period by frame period (like the paper's Fig. 3): which
 * frame arrived on which color, whether the merger found it decodable, whether it
 * was decoded, and which frame the display showed in its period; and the bytes of
 * the frames that were useful (decodable and decoded), per color, the numerator of
 * the utility of enhancement data (paper eq. 3; receivedBytes.ts has the denominator). Pure.
 */
import type { Color } from '@pels/shared/pels/color';
import type { TemporalId } from '../player/frameMerger';
import type { DisplaySample } from './displayClock';

/** What became of a frame that arrived, in the merger. */
export type ArrivalFate = 'decodable' | 'undecodable' | 'late';

export interface CoverageColumn {
  index: number;
  /** The frame's layer: from the frame, or from the server's table when it did not arrive; null if unknown. */
  tid: TemporalId | null;
  /** The color stream it arrived on; null when it did not arrive (not sent, lost, or still on its way). */
  color: Color | null;
  fate: 'missing' | ArrivalFate | 'decoded';
  /** The frame on screen during this period: `index` itself, or an earlier one repeated; null if the display has not got here. */
  shown: number | null;
}

export type ColorBytes = Record<Color, number>;

interface Entry {
  tid: TemporalId;
  color: Color;
  bytes: number;
  fate: ArrivalFate | 'decoded';
  shown: number | null;
}

/** Entries kept: the strip shows fewer; the rest covers frames that arrive ahead of the display. */
const CAPACITY = 600;

export class CoverageTracker {
  private readonly entries = new Map<number, Partial<Entry>>();
  private newestDisplayed: number | undefined;
  private readonly useful: ColorBytes = { green: 0, yellow: 0, red: 0 };

  arrived(index: number, color: Color, tid: TemporalId, bytes: number, fate: ArrivalFate): void {
    Object.assign(this.entry(index), { color, tid, bytes, fate });
  }

  decoded(index: number): void {
    const e = this.entries.get(index);
    if (!e?.color || e.fate !== 'decodable') return;
    e.fate = 'decoded';
    this.useful[e.color] += e.bytes ?? 0;
  }

  displayed(sample: DisplaySample): void {
    this.entry(sample.index).shown = sample.shown;
    this.newestDisplayed = sample.index;
  }

  /** Bytes of the frames decodable and decoded, per color, since the start. */
  usefulBytes(): ColorBytes {
    return { ...this.useful };
  }

  /** The last `count` frame periods up to the newest displayed, oldest first. */
  columns(count: number, tidOf: (index: number) => TemporalId | undefined): CoverageColumn[] {
    if (this.newestDisplayed === undefined) return [];
    const out: CoverageColumn[] = [];
    for (let i = this.newestDisplayed - count + 1; i <= this.newestDisplayed; i++) {
      const e = this.entries.get(i);
      out.push({
        index: i,
        tid: e?.tid ?? tidOf(i) ?? null,
        color: e?.color ?? null,
        fate: e?.fate ?? 'missing',
        shown: e?.shown ?? null,
      });
    }
    return out;
  }

  private entry(index: number): Partial<Entry> {
    let e = this.entries.get(index);
    if (!e) {
      e = {};
      this.entries.set(index, e);
      for (const k of this.entries.keys()) {
        if (this.entries.size <= CAPACITY) break;
        this.entries.delete(k);
      }
    }
    return e;
  }
}
