import { mulberry32 } from '@pels/shared/pels/syntheticStream';

export interface FrameLossEstimate {
  /** Mean useful (consecutively received from the start) packets per frame. */
  useful: number;
  /** Standard error of that mean. */
  usefulSe: number;
  /** Useful over received packets: the utility of eq. 3, measured. */
  utility: number;
  frames: number;
}

/**
 * Monte Carlo of section 3.1: frames of H packets, each packet lost
 * independently with probability p (Bernoulli), useful up to the first loss.
 */
export function simulateFrames(h: number, p: number, frames: number, seed: number): FrameLossEstimate {
  const random = mulberry32(seed);
  let sum = 0;
  let squares = 0;
  let received = 0;
  for (let f = 0; f < frames; f++) {
    let useful = 0;
    let intact = true;
    for (let i = 0; i < h; i++) {
      const lost = random() < p;
      if (lost) intact = false;
      else {
        received++;
        if (intact) useful++;
      }
    }
    sum += useful;
    squares += useful * useful;
  }
  const mean = sum / frames;
  const variance = frames > 1 ? (squares - frames * mean * mean) / (frames - 1) : 0;
  return { useful: mean, usefulSe: Math.sqrt(Math.max(0, variance) / frames), utility: received > 0 ? sum / received : 1, frames };
}
