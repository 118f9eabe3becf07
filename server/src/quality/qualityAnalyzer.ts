import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { QualityThread } from './qualityThread';
import type { QualityDrops } from './dropWarning';
import type { ReferenceSource } from './referenceReader';

export interface QualityAnalyzerOptions {
  /** The source's (display) size: the reference planes'. */
  width: number;
  height: number;
  /** A lower rendition: its number (tags its rows) and its encoded size, scaled up to width x height to be scored. */
  rendition?: { index: number; width: number; height: number };
  frameRate: number;
  ffmpegPath?: string;
  /** The stream's reference planes (the scaled source), read off the main thread. */
  reference: ReferenceSource;
  /** How long a plane may wait for the quality thread before it is dropped (QUEUE_LIMIT_MS). */
  queueLimitMs?: number;
  /** Rows of the stream's PSNR table, in index order. */
  onRows(frames: QualityFrame[]): void;
  log: Logger;
  /** Where the planes its thread drops are counted (the stream's, for /metrics). */
  drops?: QualityDrops;
}

/**
 * Builds a rendition's PSNR table live: its quality worker thread gets the ingest's
 * reference planes (the scaled source) from the stream's reference reader thread,
 * and from here each encoded frame as sent, with its stream index; it decodes them
 * (the server's own libvpx decode), pairs and scores them.
 *
 * Nothing here sits in the send path: the stream hands a frame over after sending it
 * to every viewer, and this only posts it to another thread.
 */
export class QualityAnalyzer {
  private readonly thread: QualityThread;
  /** The ingest run the frames come from, as the stream numbers them. */
  private run = 0;
  private closed = false;

  constructor(opts: QualityAnalyzerOptions) {
    const r = opts.rendition;
    this.thread = new QualityThread({
      onRows: r ? (rows) => opts.onRows(rows.map((row) => ({ ...row, rendition: r.index }))) : opts.onRows,
      reference: opts.reference,
      decode: {
        width: r?.width ?? opts.width,
        height: r?.height ?? opts.height,
        frameRate: opts.frameRate,
        ffmpegPath: opts.ffmpegPath ?? 'ffmpeg',
        ...(r ? { scale: { from: { width: r.width, height: r.height }, to: { width: opts.width, height: opts.height } } } : {}),
      },
      log: opts.log,
      ...(opts.queueLimitMs === undefined ? {} : { queueLimitMs: opts.queueLimitMs }),
      drops: opts.drops,
    });
  }

  /** A new FFmpeg ingest run, `run` as the reference reader got it: its reference planes and pts count from the start again. */
  newRun(run: number): void {
    this.run = run;
  }

  /** An encoded frame as sent, with the IVF pts it had in its ingest run. */
  onFrame(frame: LayeredFrame, pts: number): void {
    if (this.closed) return;
    this.thread.post({ type: 'frame', run: this.run, pts, index: frame.index, tid: frame.temporalId, keyframe: frame.keyframe, data: frame.data });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.thread.close();
  }
}
