/**
 * Messages between the server's main thread and the quality worker thread, which
 * turns planes into PSNR table rows (psnrTable.ts). Planes are transferred, not copied.
 */
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { PlaneSize } from './planeScale';
import type { TemporalId } from './psnrTable';

/**
 * A plane that waited longer than this in the worker's queue is dropped unscored.
 * The table costs about 10 ms of arithmetic per frame and rendition: on a machine
 * short of CPU the worker falls behind, and an unbounded queue put the rows ever
 * further behind the frames, past what a player waits for (a checksum, 300 frames;
 * a PSNR sample, 5 s), so a player compared none. Dropping keeps the rows that are
 * made timely: fewer frames scored, none scored too late.
 */
export const QUEUE_LIMIT_MS = 1000;

/** The worker's settings. */
export interface QualityWorkerData {
  queueLimitMs: number;
  /**
   * Source planes the table keeps waiting for the server's decode of their frame:
   * as many as come within the queue limit. The decoder is a process of its own,
   * which a machine short of CPU starts late: a fixed 30 dropped the rows of a
   * stream's first frames whatever the limit (measured at load 27: the first 1-12).
   */
  maxPendingSources: number;
}

/** Source planes that come within `queueLimitMs` at `frameRate`, and never fewer than a second's. */
export function pendingSourcesFor(queueLimitMs: number, frameRate: number): number {
  return Math.max(Math.ceil(frameRate), Math.ceil((queueLimitMs / 1000) * frameRate));
}

/** What the main thread hands over; QualityThread stamps each with when it was posted. */
export type QualityWork =
  /** The scaled source frame `index`, Y plane. */
  | { type: 'source'; index: number; plane: Uint8Array }
  /** The server's decode of frame `index`, Y plane; `scale`: a lower rendition, scored scaled up to the source's size. */
  | { type: 'decoded'; index: number; tid: TemporalId; plane: Uint8Array; scale?: { from: PlaneSize; to: PlaneSize } };

/** `sentAt`: when it was posted (ms since the epoch, the same clock in every thread). */
export type ToQualityWorker = QualityWork & { sentAt: number };

/** Rows made, and the planes dropped unscored since the last message because they waited too long. */
export type FromQualityWorker = { type: 'rows'; frames: QualityFrame[]; dropped: number };
