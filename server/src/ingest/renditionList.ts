import type { EncodeSettings, Rendition } from './sourceSpec';

/**
 * The lower rendition when none is configured: half the width and height
 * (rounded down to even numbers), a fifth of the rate. Its whole stream then
 * costs less than the full size's base layer alone (about a quarter of the
 * rate, keyframes included), so a viewer whose share is too small for that
 * base gets every frame of the lower one with room to spare; at a quarter the
 * two were equal, and three viewers sharing 900 kb/s lost enhancement frames
 * to each other at their fair share.
 */
export function defaultRenditions(top: EncodeSettings): Rendition[] {
  const even = (n: number) => Math.max(16, 2 * Math.floor(n / 4));
  return [{ width: even(top.width), height: even(top.height), bitrateKbps: Math.max(4, Math.round(top.bitrateKbps / 5)) }];
}

const ITEM = /^(\d+)x(\d+)@(\d+)$/;

/**
 * Parses a list of lower renditions, `WxH@KBPS` separated by commas, highest
 * first (`none`: the stream's own encoding only). Each must be smaller in
 * both dimensions (even numbers, for 4:2:0) and lower in rate than the one
 * before it, starting from the stream's encoding `top`. Throws a RangeError
 * that says which item is wrong.
 */
export function parseRenditions(text: string, top: EncodeSettings): Rendition[] {
  const trimmed = text.trim();
  if (trimmed === 'none') return [];
  const out: Rendition[] = [];
  let above: Rendition = top;
  for (const item of trimmed.split(',').map((s) => s.trim())) {
    const m = ITEM.exec(item);
    if (!m) throw new RangeError(`"${item}" is not WxH@KBPS (e.g. 320x180@250)`);
    const [width, height, bitrateKbps] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (width < 16 || height < 16 || width % 2 || height % 2) throw new RangeError(`"${item}": width and height must be even numbers >= 16`);
    if (width > above.width || height > above.height || (width === above.width && height === above.height)) {
      throw new RangeError(`"${item}" must be smaller than ${above.width}x${above.height}, the rendition above it`);
    }
    if (bitrateKbps < 4 || bitrateKbps >= above.bitrateKbps) throw new RangeError(`"${item}": the rate must be at least 4 kb/s and below ${above.bitrateKbps}, the rendition above it`);
    above = { width, height, bitrateKbps };
    out.push(above);
  }
  return out;
}
