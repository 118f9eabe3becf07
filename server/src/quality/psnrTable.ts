/**
 * The PSNR table of a stream: for each source frame i, the Y-PSNR of every decoded
 * frame j that a player may show while i is due (i itself, or an earlier frame
 * repeated because the frames after it did not arrive), and the CRC32 of decoded
 * frame i's Y plane for the player to check its own decode against.
 *
 * Pure: planes go in by stream frame index, in any interleaving of source and decoded
 * planes; each row comes out once both plane i's are known. Decoding is deterministic
 * and a decoded frame does not depend on which later frames arrived (docs/architecture.md), so one
 * table serves every viewer.
 */
import { crc32 } from '@pels/shared/crc32';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { yPsnr } from './psnr';

export type TemporalId = QualityFrame['tid'];

export interface PsnrTableOptions {
  /**
   * How many frames back a repeat is scored: j in [i - back, i]. The 0,2,1,2 layer
   * pattern puts the previous base frame at most 3 back; 8 also covers one lost base frame.
   */
  back?: number;
  /** Source planes kept waiting for their decoded frame; the oldest go first (the decoder fell behind or failed). */
  maxPending?: number;
}

const DEFAULT_BACK = 8;
const DEFAULT_MAX_PENDING = 30;
/**
 * How far the source planes may lag the decoded ones and still get full rows. The
 * ingest writes source frame i about one frame after the encoded frame i, which the
 * decoder turns around in about a millisecond.
 */
const MAX_SOURCE_LAG = 8;

/** dB with two decimals: finer than any meaningful difference, and short in JSON. */
function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export class PsnrTableBuilder {
  private readonly back: number;
  private readonly maxPending: number;
  /** Source planes whose decoded frame has not come yet. */
  private readonly sources = new Map<number, Uint8Array>();
  /** Recent decoded planes by index, with their CRC32s and layers. */
  private readonly decoded = new Map<number, { plane: Uint8Array; crc: number; tid: TemporalId }>();

  constructor(options: PsnrTableOptions = {}) {
    this.back = options.back ?? DEFAULT_BACK;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  }

  addSource(index: number, plane: Uint8Array): QualityFrame[] {
    if (this.decoded.has(index)) return [this.row(index, plane)];
    this.sources.set(index, plane);
    // Indexes only grow, so insertion order is index order.
    for (const k of this.sources.keys()) {
      if (this.sources.size <= this.maxPending) break;
      this.sources.delete(k);
    }
    return [];
  }

  /** `plane` as decoded (its CRC32 is the row's); `scored` the same frame as displayed, at the source's size (a lower rendition scaled up). */
  addDecoded(index: number, tid: TemporalId, plane: Uint8Array, scored: Uint8Array = plane): QualityFrame[] {
    this.decoded.set(index, { plane: scored, crc: crc32(plane), tid });
    for (const j of this.decoded.keys()) if (j < index - this.back - MAX_SOURCE_LAG) this.decoded.delete(j);
    const source = this.sources.get(index);
    if (!source) return [];
    this.sources.delete(index);
    return [this.row(index, source)];
  }

  private row(index: number, source: Uint8Array): QualityFrame {
    const psnr: (number | null)[] = [];
    for (let k = 0; k <= this.back; k++) {
      const d = this.decoded.get(index - k);
      psnr.push(d ? round2(yPsnr(source, d.plane)) : null);
    }
    while (psnr.length > 0 && psnr.at(-1) === null) psnr.pop();
    const own = this.decoded.get(index)!;
    return { index, tid: own.tid, crc: own.crc, psnr };
  }
}
