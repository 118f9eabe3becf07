import { TEMPORAL_PATTERN, type FrameInfo } from './frame';

/** Small, fast, seedable PRNG (mulberry32): reproducible tests and lab runs. Returns values in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticStreamOptions {
  seed: number;
  fps?: number;
  /** Mean frame size per temporal layer, bytes. */
  meanBytes?: readonly [number, number, number];
  /** Relative uniform noise: a frame is mean * (1 +- noise). */
  noise?: number;
  /** Every this many frames a keyframe (multiple of 4 keeps the pattern); 0: only the first frame. */
  keyframeInterval?: number;
  /** Keyframes are larger than delta base frames. */
  keyframeBytes?: number;
}

export interface SyntheticFrame extends FrameInfo {
  atMs: number;
}

/**
 * Frames shaped like the encoder's output (pattern 0,2,1,2, noisy sizes), for
 * tests and the lab; defaults follow a 640x360 stream near 870 kb/s.
 */
export function syntheticFrames(options: SyntheticStreamOptions, count: number): SyntheticFrame[] {
  const { fps = 30, meanBytes = [6000, 3500, 2500], noise = 0.3, keyframeInterval = 0, keyframeBytes = 20000 } = options;
  const random = mulberry32(options.seed);
  const frames: SyntheticFrame[] = [];
  for (let i = 0; i < count; i++) {
    const temporalId = TEMPORAL_PATTERN[i % TEMPORAL_PATTERN.length]!;
    const keyframe = i === 0 || (keyframeInterval > 0 && i % keyframeInterval === 0);
    const mean = keyframe ? keyframeBytes : meanBytes[temporalId];
    const bytes = Math.max(1, Math.round(mean * (1 + noise * (2 * random() - 1))));
    frames.push({ temporalId: keyframe ? 0 : temporalId, keyframe, bytes, atMs: (i * 1000) / fps });
  }
  return frames;
}
