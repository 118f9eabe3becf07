/**
 * Expected quality of a viewer's video under loss, from the stream's own PSNR
 * table: for each source frame i the table holds the PSNR of every decoded
 * frame j <= i a player may show while i is due. Under independent frame loss
 * (base frames at the green stream's loss, enhancement frames at the pooled
 * loss of yellow and red) and with only the layers below `layers` sent, the
 * player shows the newest frame of the window that arrived with its whole
 * reference chain; the expected PSNR is the table's PSNR of that frame,
 * averaged over the rows.
 *
 * References follow libvpx's 0,2,1,2 pattern: a TID 0 frame references the
 * previous TID 0 frame, any other frame the nearest earlier frame of a lower
 * layer. Frames before a row's window are taken as decoded (a player
 * recovers a broken base chain by a keyframe within the window), and a row
 * whose window holds no decodable frame scores its oldest entry: both make the
 * estimate err high, so a viewer is cut only when its video is surely poor.
 *
 * Pure: the server builds one per rendition from its table's recent rows.
 */
import type { QualityFrame } from '../protocol/signaling';

/** Frame loss by stream: base frames ride green, enhancement frames yellow and red. */
export interface FrameLoss {
  base: number;
  enhancement: number;
}

/** How many temporal layers are sent: 1 the base layer only, 3 all. */
export type LayerCount = 1 | 2 | 3;

type Row = Pick<QualityFrame, 'index' | 'tid' | 'psnr'>;

/** Rows with the same layers in their window share one distribution of which frame is shown. */
interface WindowClass {
  /** TID of each frame of the window, newest (the row's own) first; -1: unknown, never shown. */
  tids: number[];
  /** Per row of the class: PSNR by offset k = i - j (the row's oldest entry where the table has none). */
  psnrByOffset: number[][];
}

export class IntelligibilityModel {
  private readonly classes: WindowClass[];
  private readonly rows: number;

  constructor(rows: readonly Row[]) {
    const tidOf = new Map<number, number>();
    for (const r of rows) tidOf.set(r.index, r.tid);
    const byKey = new Map<string, WindowClass>();
    let used = 0;
    for (const r of rows) {
      // Rows end at their oldest entry (no trailing nulls).
      const depth = r.psnr.length - 1;
      const oldest = r.psnr[depth];
      if (oldest === undefined || oldest === null) continue;
      const tids = Array.from({ length: depth + 1 }, (_, k) => tidOf.get(r.index - k) ?? -1);
      const psnrByOffset = r.psnr.map((v) => v ?? oldest);
      const key = tids.join(',');
      let c = byKey.get(key);
      if (!c) byKey.set(key, (c = { tids, psnrByOffset: [] }));
      c.psnrByOffset.push(psnrByOffset);
      used++;
    }
    this.classes = [...byKey.values()];
    this.rows = used;
  }

  /** Rows the model averages over; 0: nothing to go by yet. */
  get rowCount(): number {
    return this.rows;
  }

  /** Expected PSNR (dB) of the video with `layers` layers sent at `loss`; null without rows. */
  expectedPsnr(layers: LayerCount, loss: FrameLoss): number | null {
    if (this.rows === 0) return null;
    checkLoss(loss.base);
    checkLoss(loss.enhancement);
    let total = 0;
    for (const c of this.classes) {
      const shown = shownOffsets(c.tids, layers, loss);
      for (const row of c.psnrByOffset) {
        for (let k = 0; k < row.length; k++) total += shown[k]! * row[k]!;
        total += shown[row.length]! * row[row.length - 1]!;
      }
    }
    return total / this.rows;
  }

  /**
   * The loss (the same on every stream) above which the video with `layers`
   * layers falls below `floorDb`: 0 when it is below even without loss, 1 when
   * it never is. The threshold the viewer's state names.
   */
  lossThreshold(layers: LayerCount, floorDb: number): number | null {
    const at = (p: number) => this.expectedPsnr(layers, { base: p, enhancement: p });
    const clean = at(0);
    if (clean === null) return null;
    if (clean < floorDb) return 0;
    if (at(1)! >= floorDb) return 1;
    // Expected PSNR falls with loss: bisect to a tenth of a percent.
    let lo = 0;
    let hi = 1;
    while (hi - lo > 0.001) {
      const mid = (lo + hi) / 2;
      if (at(mid)! >= floorDb) lo = mid;
      else hi = mid;
    }
    return lo;
  }
}

function checkLoss(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`loss must be in [0, 1]; got ${p}`);
}

/**
 * P(the frame shown is the one k frames back), k = 0..n-1, and at index n
 * P(none of the window decodes): every arrival pattern of the window's sent
 * frames, weighed by its probability (at most 2^9 patterns for 9 frames).
 */
function shownOffsets(tidsNewestFirst: readonly number[], layers: LayerCount, loss: FrameLoss): number[] {
  const n = tidsNewestFirst.length;
  const tids = [...tidsNewestFirst].reverse(); // oldest first
  const sent = tids.map((t) => t >= 0 && t < layers);
  const ref = tids.map((t, pos) => {
    for (let q = pos - 1; q >= 0; q--) if (t === 0 ? tids[q] === 0 : tids[q]! >= 0 && tids[q]! < t) return q;
    return -1; // before the window: taken as decoded
  });
  const positions = tids.map((_, pos) => pos).filter((pos) => sent[pos]);
  const arrive = positions.map((pos) => 1 - (tids[pos] === 0 ? loss.base : loss.enhancement));
  const out = new Array<number>(n + 1).fill(0);
  const decoded = new Array<boolean>(n).fill(false);
  for (let mask = 0; mask < 1 << positions.length; mask++) {
    let p = 1;
    decoded.fill(false);
    for (let b = 0; b < positions.length; b++) {
      const pos = positions[b]!;
      const arrived = (mask >> b) & 1;
      p *= arrived ? arrive[b]! : 1 - arrive[b]!;
      decoded[pos] = arrived === 1 && (ref[pos] === -1 || decoded[ref[pos]!]!);
    }
    if (p === 0) continue;
    const newest = decoded.lastIndexOf(true);
    out[newest === -1 ? n : n - 1 - newest]! += p;
  }
  return out;
}
