/**
 * The player's copy of its stream's PSNR tables (rows from the server's `quality`
 * notifications), one per rendition, and the check of its own decode against the
 * server's: the CRC32 of each decoded Y plane must equal the row's of the rendition
 * it was decoded in. Every rendition is scored against the source at the stream's
 * size, so a frame shown from a lower rendition is scored like any other. Bounded
 * to the newest rows. Pure.
 */
import { qualityRowScores } from '@pels/shared/protocol/qualityRow';
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

/** Keeps a map's newest `capacity` entries (insertion order is index order here). */
function bound<K, V>(map: Map<K, V>, capacity: number): void {
  for (const k of map.keys()) {
    if (map.size <= capacity) break;
    map.delete(k);
  }
}

export class QualityTables {
  /** By rendition, then index. */
  private readonly rows = new Map<number, Map<number, Row>>();
  /** The rendition each decoded frame came in, by index. */
  private readonly renditions = new Map<number, number>();
  private readonly waiting = new Map<number, { crc: number; rendition: number }>();
  private compared = 0;
  private mismatched = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  addRows(frames: readonly QualityFrame[]): void {
    for (const f of frames) {
      const rendition = f.rendition ?? 0;
      const table = this.table(rendition);
      table.set(f.index, { tid: f.tid, crc: f.crc, psnr: new Map(qualityRowScores(f)) });
      bound(table, this.capacity);
      const ours = this.waiting.get(f.index);
      if (ours?.rendition === rendition) {
        this.waiting.delete(f.index);
        this.compare(ours.crc, f.crc);
      }
    }
  }

  /** Decoded frame `index` is of this rendition (told before its checksum). */
  decodedRendition(index: number, rendition: number): void {
    this.renditions.set(index, rendition);
    bound(this.renditions, this.capacity);
  }

  /** The CRC32 of our decoded frame `index`'s Y plane. */
  decodedChecksum(index: number, crc: number): void {
    const rendition = this.renditions.get(index) ?? 0;
    const row = this.rows.get(rendition)?.get(index);
    if (row) return this.compare(crc, row.crc);
    this.waiting.set(index, { crc, rendition });
    bound(this.waiting, MAX_WAITING);
  }

  /** PSNR (dB) of decoded frame `shown` while `index` was due: undefined while row `index` is unknown, null if `shown` is not in it. */
  psnr(index: number, shown: number): number | null | undefined {
    const row = this.rows.get(this.renditions.get(shown) ?? 0)?.get(index);
    if (!row) return undefined;
    return row.psnr.get(shown) ?? null;
  }

  tid(index: number): TemporalId | undefined {
    return this.rows.get(this.renditions.get(index) ?? 0)?.get(index)?.tid;
  }

  get checksums(): { compared: number; mismatches: number } {
    return { compared: this.compared, mismatches: this.mismatched };
  }

  private table(rendition: number): Map<number, Row> {
    let t = this.rows.get(rendition);
    if (!t) this.rows.set(rendition, (t = new Map()));
    return t;
  }

  private compare(ours: number, server: number): void {
    this.compared++;
    if (ours !== server) this.mismatched++;
  }
}
