/**
 * The recent rows of a stream's PSNR table, in index order, bounded to a number of
 * frames (memory stays flat however long the stream runs). Pure.
 */
import type { QualityFrame } from '@pels/shared/protocol/signaling';

export class QualityWindow {
  private rows: QualityFrame[] = [];

  constructor(private readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`capacity must be a positive integer; got ${capacity}`);
  }

  get newestIndex(): number | undefined {
    return this.rows.at(-1)?.index;
  }

  /** Rows come in index order; one out of order (a restarted worker) is put in its place. */
  add(frames: readonly QualityFrame[]): void {
    for (const f of frames) {
      let at = this.rows.length;
      while (at > 0 && this.rows[at - 1]!.index >= f.index) at--;
      if (this.rows[at]?.index === f.index) this.rows[at] = f;
      else this.rows.splice(at, 0, f);
    }
    if (this.rows.length > this.capacity) this.rows = this.rows.slice(this.rows.length - this.capacity);
  }

  /** The rows with an index above `index`, oldest first. */
  after(index: number): QualityFrame[] {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rows[mid]!.index <= index) lo = mid + 1;
      else hi = mid;
    }
    return this.rows.slice(lo);
  }
}
