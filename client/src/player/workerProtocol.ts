/**
 * Messages between the page and the player worker, one union per direction,
 * and the options each RTCRtpScriptTransform carries into the worker.
 */
import { COLORS, type Color } from '@pels/shared/pels/color';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { ColorBytes, CoverageColumn } from '../quality/coverage';
import type { QualitySample } from '../quality/qualityTracker';
import type { AudioTiming } from './avSync';
import type { PlayerStats } from './stats';

export type PageToWorker =
  | {
      type: 'init';
      /** Transferred from the page's <canvas>; the worker draws the displayed frames on it. */
      canvas: OffscreenCanvas;
      /** RTP ticks between frames, from `join`. */
      ticksPerFrame: number;
      /** The stream's renditions, from `join`: [0] is the size every frame is shown at. */
      renditions: { width: number; height: number }[];
      playoutDeadlineMs: number;
      /** From `join`: RTP timestamps to stream frame indexes (quality/frameIndex.ts). */
      timestampBase: number;
      indexHint: number;
    }
  /** Rows of the stream's PSNR table, from the server's `quality` notifications. */
  | { type: 'quality'; frames: QualityFrame[] }
  /** Once a second from the receive transport's stats, with the colors the server retransmits (from consume). */
  | { type: 'network'; rttMs: number | null; packetsRecovered: number; retransmitted: Color[] }
  /** The sound's timestamps against the video's (signaling `consumeAudio`): the worker times the display by the sound from now on. */
  | { type: 'audioTiming'; timing: AudioTiming }
  /** The audio receiver was playing out `rtpTimestamp` at `atEpochMs` (ms since the epoch). */
  | { type: 'audioPlayed'; rtpTimestamp: number; atEpochMs: number }
  /** The server's clock minus the page's (clockOffset.ts), for the live latency; sent when it changes. */
  | { type: 'clockOffset'; offsetMs: number };

/** What the display did since the last update, for the page's charts, strip and test hook. */
export interface QualityUpdate {
  /** The worker's performance.timeOrigin: sample times are on the worker's clock. */
  timeOrigin: number;
  /** Displayed frame periods scored since the last update. */
  samples: QualitySample[];
  /** The latest frame periods of the coverage strip. */
  columns: CoverageColumn[];
  /** Bytes of the frames decodable and decoded, per color, since the start: utility's numerator. */
  usefulBytes: ColorBytes;
}

export type WorkerToPage =
  /** `soundLeadMs`: how far the sound runs ahead of the frames now (DisplayClock.soundLeadMs), for the page to hold it back. */
  | { type: 'stats'; stats: PlayerStats; soundLeadMs: number | null }
  | { type: 'quality'; update: QualityUpdate }
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
