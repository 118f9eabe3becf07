/**
 * The player's copy of its stream's PSNR table (rows from the server's `quality`
 * notifications) and the check of its own decode against the server's: the CRC32 of
 * each decoded Y plane must equal the row's. Bounded to the newest rows. Pure.
 */
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { TemporalId } from '../player/frameMerger';

interface Row {
  tid: TemporalId;
  crc: number;
  psnr: Map<number, number>;
}

/** 60 s at 30 fps: rows come about 0.5 s ahead of or behind the frames they describe. */
const DEFAULT_CAPACITY = 1800;
/** Our checksums waiting for their row; one whose row never comes is dropped uncompared. */
const MAX_WAITING = 300;

export class QualityTables {
  private readonly rows = new Map<number, Row>();
  private readonly waiting = new Map<number, number>();
  private compared = 0;
  private mismatched = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  addRows(frames: readonly QualityFrame[]): void {
    for (const f of frames) {
      this.rows.set(f.index, { tid: f.tid, crc: f.crc, psnr: new Map(f.psnr) });
      const ours = this.waiting.get(f.index);
      if (ours !== undefined) {
        this.waiting.delete(f.index);
        this.compare(ours, f.crc);
      }
    }
    // Rows come in index order, so the first keys are the oldest.
    for (const k of this.rows.keys()) {
      if (this.rows.size <= this.capacity) break;
      this.rows.delete(k);
    }
  }

  /** The CRC32 of our decoded frame `index`'s Y plane. */
  decodedChecksum(index: number, crc: number): void {
    const row = this.rows.get(index);
    if (row) return this.compare(crc, row.crc);
    this.waiting.set(index, crc);
    for (const k of this.waiting.keys()) {
      if (this.waiting.size <= MAX_WAITING) break;
      this.waiting.delete(k);
    }
  }

  /** PSNR (dB) of decoded frame `shown` while `index` was due: undefined while row `index` is unknown, null if `shown` is not in it. */
  psnr(index: number, shown: number): number | null | undefined {
    const row = this.rows.get(index);
    if (!row) return undefined;
    return row.psnr.get(shown) ?? null;
  }

  tid(index: number): TemporalId | undefined {
    return this.rows.get(index)?.tid;
  }

  get checksums(): { compared: number; mismatches: number } {
    return { compared: this.compared, mismatches: this.mismatched };
  }

  private compare(ours: number, server: number): void {
    this.compared++;
    if (ours !== server) this.mismatched++;
  }
}
