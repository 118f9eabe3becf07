/**
 * Bilinear resampling of an 8-bit plane, pixel centres aligned (half-pixel
 * offsets), edges clamped: how the player's canvas draws a lower rendition at
 * the display size, so that its PSNR is scored against the source at that size.
 * Weights are in 1/256 steps (integer arithmetic: this runs for every frame).
 */
export interface PlaneSize {
  width: number;
  height: number;
}

/** For each output position: the two source positions around it and the second one's weight (0..256). */
function taps(outSize: number, inSize: number): { lo: Int32Array; hi: Int32Array; w: Int32Array } {
  const lo = new Int32Array(outSize);
  const hi = new Int32Array(outSize);
  const w = new Int32Array(outSize);
  const scale = inSize / outSize;
  for (let i = 0; i < outSize; i++) {
    const f = Math.min(inSize - 1, Math.max(0, (i + 0.5) * scale - 0.5));
    lo[i] = Math.floor(f);
    hi[i] = Math.min(inSize - 1, lo[i]! + 1);
    w[i] = Math.round((f - lo[i]!) * 256);
  }
  return { lo, hi, w };
}

export function scalePlane(plane: Uint8Array, from: PlaneSize, to: PlaneSize): Uint8Array {
  if (plane.length !== from.width * from.height) throw new RangeError(`plane of ${plane.length} bytes is not ${from.width}x${from.height}`);
  const out = new Uint8Array(to.width * to.height);
  const cols = taps(to.width, from.width);
  const rows = taps(to.height, from.height);
  for (let y = 0; y < to.height; y++) {
    const r0 = rows.lo[y]! * from.width;
    const r1 = rows.hi[y]! * from.width;
    const wy = rows.w[y]!;
    const o = y * to.width;
    for (let x = 0; x < to.width; x++) {
      const c0 = cols.lo[x]!;
      const c1 = cols.hi[x]!;
      const wx = cols.w[x]!;
      const top = plane[r0 + c0]! * (256 - wx) + plane[r0 + c1]! * wx;
      const bottom = plane[r1 + c0]! * (256 - wx) + plane[r1 + c1]! * wx;
      out[o + x] = (top * (256 - wy) + bottom * wy + 32768) >> 16;
    }
  }
  return out;
}
