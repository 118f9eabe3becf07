import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { LibvpxDecoder } from './libvpxDecoder';
import { QualityThread } from './qualityThread';
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
}

/**
 * Builds a rendition's PSNR table live: the quality worker thread gets the ingest's
 * reference planes (the scaled source) from the stream's reference reader thread,
 * and from here each encoded frame's stream index and the server's own libvpx
 * decode of it; it pairs and scores them.
 *
 * Nothing here sits in the send path: the stream hands a frame over after sending it
 * to every viewer, and this only queues work for other processes and threads.
 */
export class QualityAnalyzer {
  private readonly thread: QualityThread;
  /** The ingest run the frames come from, as the stream numbers them. */
  private run = 0;
  private decoder: LibvpxDecoder | null = null;
  private closed = false;

  constructor(private readonly opts: QualityAnalyzerOptions) {
    const r = opts.rendition;
    this.thread = new QualityThread(r ? (rows) => opts.onRows(rows.map((row) => ({ ...row, rendition: r.index }))) : opts.onRows, opts.reference, opts.log, opts.queueLimitMs, opts.frameRate);
  }

  /** A new FFmpeg ingest run, `run` as the reference reader got it: its reference planes and pts count from the start again. */
  newRun(run: number): void {
    this.run = run;
  }

  /** An encoded frame as sent, with the IVF pts it had in its ingest run. */
  onFrame(frame: LayeredFrame, pts: number): void {
    if (this.closed) return;
    this.thread.post({ type: 'frame', run: this.run, pts, index: frame.index });
    // A (re)started decoder begins at a keyframe: the frames before it would not decode.
    if (!this.decoder && frame.keyframe) this.decoder = this.startDecoder();
    this.decoder?.decode(frame.index, frame.temporalId, frame.data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.decoder?.close();
    this.decoder = null;
    this.thread.close();
  }

  private startDecoder(): LibvpxDecoder {
    const { rendition: r, width, height } = this.opts;
    const scale = r ? { from: { width: r.width, height: r.height }, to: { width, height } } : undefined;
    const decoder: LibvpxDecoder = new LibvpxDecoder({
      width: r?.width ?? width,
      height: r?.height ?? height,
      frameRate: this.opts.frameRate,
      ffmpegPath: this.opts.ffmpegPath ?? 'ffmpeg',
      onPlane: (d) => this.thread.post(scale ? { type: 'decoded', ...d, scale } : { type: 'decoded', ...d }),
      onFailure: (reason) => {
        if (this.decoder === decoder) this.decoder = null;
        this.opts.log.warn({ reason }, 'quality decoder stopped; restarting it at the next keyframe');
      },
    });
    return decoder;
  }
}
