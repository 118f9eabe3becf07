/**
 * Messages of the quality measurement's threads. The reference reader thread
 * (referenceReaderWorker.ts) reads FFmpeg's reference planes and posts each to
 * every rendition's quality worker thread on a port of its own; the main thread
 * posts each worker its rendition's encoded frames with the stream index each got,
 * and the worker decodes them itself. Planes and frames are transferred, not copied.
 */
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { PlaneSize } from './planeScale';
import type { TemporalId } from './psnrTable';
import type { MessagePort } from 'node:worker_threads';

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
  /** The rendition's decode: its encoded size, the frame rate, FFmpeg; `scale`: a lower rendition, scored scaled up to the source's size. */
  decode: { width: number; height: number; frameRate: number; ffmpegPath: string; scale?: { from: PlaneSize; to: PlaneSize } };
  /**
   * Int32Array [1]: the main thread sets it to 1 when it closes the worker. The close message queues behind the
   * frames and planes already posted, which a thread short of CPU (it runs at a lower priority) took more than
   * the close's time to work through, and a terminated thread leaves its decoder unreaped: with the flag the
   * worker skips that work and ends at its next message.
   */
  closing: SharedArrayBuffer;
}

/** Source planes that come within `queueLimitMs` at `frameRate`, and never fewer than a second's. */
export function pendingSourcesFor(queueLimitMs: number, frameRate: number): number {
  return Math.max(Math.ceil(frameRate), Math.ceil((queueLimitMs / 1000) * frameRate));
}

/**
 * What the main thread hands over: each encoded frame as sent, which the worker
 * decodes (libvpxDecoder.ts, a process of its own) and pairs with its reference
 * plane. Runs are the ingest's FFmpeg runs, numbered by the stream; `pts` counts a
 * run's frames from 0, as the reference planes' `k` does (sourceAlignment.ts).
 */
export type QualityWork = { type: 'frame'; run: number; pts: number; index: number; tid: TemporalId; keyframe: boolean; data: Uint8Array };

/** `sentAt`: when it was posted (ms since the epoch, the same clock in every thread). */
export type ToQualityWorker =
  | (QualityWork & { sentAt: number })
  /** Where the reference planes come from now (the reader thread's port) and the count of them queued, which the worker lowers. */
  | { type: 'reference'; port: MessagePort; backlog: SharedArrayBuffer }
  /** The thread ends once its decoder has exited: a terminated thread would leave its decoder unreaped. */
  | { type: 'close' };

/** Rows made, and the planes dropped unscored since the last message because they waited too long; or why the decoder stopped (it restarts at the next keyframe). */
export type FromQualityWorker = { type: 'rows'; frames: QualityFrame[]; dropped: number } | { type: 'decoder-stopped'; reason: string };

/** A reference plane, from the reader thread to a quality worker: plane `k` (from 0) of run `run`, read at `sentAt`. */
export type ReferencePlane = { type: 'plane'; run: number; k: number; plane: Uint8Array; sentAt: number };

/** The reader thread's settings; `counts`: Int32Array [planes read, plane copies dropped], for the main thread to read. */
export interface ReferenceReaderData {
  planeBytes: number;
  /** Planes a quality worker may have queued; past it the reader drops its copy. */
  maxQueued: number;
  counts: SharedArrayBuffer;
}

/** From the main thread to the reader thread. */
export type ToReferenceReader =
  /** A run's pipe: the reader owns `fd` from now on. */
  | { type: 'run'; run: number; fd: number }
  /** A quality worker's port and its queued count (Int32Array [queued]). */
  | { type: 'consumer'; port: MessagePort; backlog: SharedArrayBuffer }
  | { type: 'close' };

/** Plane copies the reader dropped since its last message (a quality worker had `maxQueued` waiting). */
export type FromReferenceReader = { type: 'dropped'; planes: number };
