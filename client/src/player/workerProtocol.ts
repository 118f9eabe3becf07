/**
 * Messages between the page and the player worker, one union per direction,
 * and the options each RTCRtpScriptTransform carries into the worker.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { PlayerStats } from './stats';

export type PageToWorker = {
  type: 'init';
  /** Transferred from the page's <canvas>; the worker draws every decoded frame on it. */
  canvas: OffscreenCanvas;
  /** RTP ticks between frames, from `join`. */
  ticksPerFrame: number;
  playoutDeadlineMs: number;
};

export type WorkerToPage =
  | { type: 'stats'; stats: PlayerStats }
  /** The first frame of the session has been decoded and drawn. */
  | { type: 'playing'; stats: PlayerStats }
  /** The worker cannot play at all (no WebCodecs VP8, no canvas). */
  | { type: 'fatal'; message: string };

/** `options` of `new RTCRtpScriptTransform(worker, options)`: which color stream the frames belong to. */
export interface TransformOptions {
  color: Color;
}

export function isTransformOptions(value: unknown): value is TransformOptions {
  const color = (value as { color?: unknown } | null)?.color;
  return typeof color === 'string' && (COLORS as readonly string[]).includes(color);
}

export const STATS_INTERVAL_MS = 250;
