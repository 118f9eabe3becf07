import type { QualityFrame } from './signaling';

/**
 * A PSNR table row's scores as [decoded frame j, dB], newest j first; frames
 * the server did not decode left out. Apart from signaling.ts so the player's
 * bundle need not take its schemas (zod) along.
 */
export function qualityRowScores(row: QualityFrame): [number, number][] {
  return row.psnr.flatMap((db, k): [number, number][] => (db === null ? [] : [[row.index - k, db]]));
}
