/**
 * Pairs one FFmpeg run's reference planes (the scaled source, frame after frame) with
 * the stream indexes of the encoded frames made from them. The encoder's IVF pts
 * counts the raw frames it read in the run from 0 (pels-vp8enc), and FFmpeg writes
 * the same frames, in the same order, to the reference output: the k-th reference
 * plane belongs to the encoded frame of pts k. The reader numbers the planes, so a
 * plane it dropped shifts none after it.
 *
 * Counted from pts 0, not from the first frame seen here: the stream drops the
 * frame sets of a run's start when one rendition's encoder is far behind another's
 * (FFmpeg writes a backlog to each output in turn), and pairing from the first set
 * that came shifted every pair of the run by the sets dropped: wrong PSNR, and no
 * row at all once the shift passed the bound below (measured: 40 and 67 sets).
 *
 * Either side may come first; unpaired entries are bounded, oldest dropped.
 */
export interface AlignedPlane {
  index: number;
  plane: Uint8Array;
}

const MAX_UNPAIRED = 30;

export class SourceAlignment {
  /** Reference planes by their position in the run, waiting for their encoded frame. */
  private readonly planes = new Map<number, Uint8Array>();
  /** Stream indexes by position in the run, waiting for their reference plane. */
  private readonly indexes = new Map<number, number>();

  /** Reference plane `k` (from 0) of the run. */
  source(k: number, plane: Uint8Array): AlignedPlane | null {
    const index = this.indexes.get(k);
    if (index === undefined) {
      put(this.planes, k, plane);
      return null;
    }
    this.indexes.delete(k);
    return { index, plane };
  }

  /** An encoded frame of the run: its IVF pts (its position in the run) and its stream index. */
  encoded(k: number, index: number): AlignedPlane | null {
    const plane = this.planes.get(k);
    if (plane === undefined) {
      put(this.indexes, k, index);
      return null;
    }
    this.planes.delete(k);
    return { index, plane };
  }
}

/** Positions grow (a consumer's planes come in order; frames too), so the first key is the oldest. */
function put<V>(map: Map<number, V>, k: number, v: V): void {
  map.set(k, v);
  for (const old of map.keys()) {
    if (map.size <= MAX_UNPAIRED) break;
    map.delete(old);
  }
}
