/**
 * Pairs one FFmpeg run's reference planes (the scaled source, frame after frame) with
 * the stream indexes of the encoded frames made from them. The encoder's IVF pts
 * counts source frames (time base 1/frameRate), so the k-th reference plane belongs
 * to the encoded frame whose pts is the run's first pts + k: a frame the encoder
 * dropped leaves its plane unpaired instead of shifting every later pair.
 *
 * Either side may come first; unpaired entries are bounded, oldest dropped.
 */
export interface AlignedPlane {
  index: number;
  plane: Uint8Array;
}

const MAX_UNPAIRED = 30;

export class SourceAlignment {
  private firstPts: number | undefined;
  private planesSeen = 0;
  /** Reference planes by their position in the run, waiting for their encoded frame. */
  private readonly planes = new Map<number, Uint8Array>();
  /** Stream indexes by position in the run, waiting for their reference plane. */
  private readonly indexes = new Map<number, number>();

  /** The next reference plane of the run. */
  source(plane: Uint8Array): AlignedPlane | null {
    const k = this.planesSeen++;
    const index = this.indexes.get(k);
    if (index === undefined) {
      put(this.planes, k, plane);
      return null;
    }
    this.indexes.delete(k);
    return { index, plane };
  }

  /** An encoded frame of the run: its IVF pts and its stream index. */
  encoded(pts: number, index: number): AlignedPlane | null {
    this.firstPts ??= pts;
    const k = pts - this.firstPts;
    const plane = this.planes.get(k);
    if (plane === undefined) {
      put(this.indexes, k, index);
      return null;
    }
    this.planes.delete(k);
    return { index, plane };
  }
}

/** Positions only grow, so the first key is the oldest. */
function put<V>(map: Map<number, V>, k: number, v: V): void {
  map.set(k, v);
  for (const old of map.keys()) {
    if (map.size <= MAX_UNPAIRED) break;
    map.delete(old);
  }
}
