/**
 * Bilinear resampling of an 8-bit plane, pixel centres aligned (half-pixel
 * offsets), edges clamped: how the player's canvas draws a lower rendition at
 * the display size, so that its PSNR is scored against the source at that size.
 */
export interface PlaneSize {
  width: number;
  height: number;
}

export function scalePlane(plane: Uint8Array, from: PlaneSize, to: PlaneSize): Uint8Array {
  if (plane.length !== from.width * from.height) throw new RangeError(`plane of ${plane.length} bytes is not ${from.width}x${from.height}`);
  const out = new Uint8Array(to.width * to.height);
  const sx = from.width / to.width;
  const sy = from.height / to.height;
  const maxX = from.width - 1;
  const maxY = from.height - 1;
  for (let y = 0; y < to.height; y++) {
    const fy = Math.min(maxY, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(maxY, y0 + 1);
    const wy = fy - y0;
    const row0 = y0 * from.width;
    const row1 = y1 * from.width;
    for (let x = 0; x < to.width; x++) {
      const fx = Math.min(maxX, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(maxX, x0 + 1);
      const wx = fx - x0;
      const top = plane[row0 + x0]! + (plane[row0 + x1]! - plane[row0 + x0]!) * wx;
      const bottom = plane[row1 + x0]! + (plane[row1 + x1]! - plane[row1 + x0]!) * wx;
      out[y * to.width + x] = Math.round(top + (bottom - top) * wy);
    }
  }
  return out;
}
