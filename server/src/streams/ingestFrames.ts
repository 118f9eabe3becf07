import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { EncodeSettings, Rendition } from '../ingest/sourceSpec';
import type { LayeredFrame } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { noQualityDrops, type QualityDrops } from '../quality/dropWarning';
import { QualityAnalyzer } from '../quality/qualityAnalyzer';
import { ReferenceReader } from '../quality/referenceReader';
import { RenditionFrames, type FrameSet } from './renditionFrames';

export interface IngestFramesOptions {
  encode: EncodeSettings;
  /** Lower renditions, highest first (rendition 0 is `encode`). */
  renditions: readonly Rendition[];
  /** Every rendition's quality measured here; absent: not measured (an edge's rows are its origin's). */
  measure?: {
    /** A rendition's PSNR table rows, in index order; a lower rendition's rows carry its number. */
    onRows(rendition: number, rows: QualityFrame[]): void;
    /** How long a plane may wait for a quality thread (by default QUEUE_LIMIT_MS). */
    queueLimitMs?: number;
    /** The reference reader's; each rendition's analyzer adds its `rendition`. */
    log: Logger;
  };
}

/**
 * An ingest's frames as a stream takes them: each rendition's layered by one
 * FrameLayering (RenditionFrames), one set per source frame; and, where the
 * stream measures, every rendition's quality: one reference reader for the
 * ingest's planes and a QualityAnalyzer per rendition, fed the very frames the
 * viewers got, the ingest's runs counted for both alike.
 * The owner maps the ingest's events: 'run' to onRun, 'reference' to onReference
 * (only when `measured`: the ingest makes the pipe for a listener), and 'frame'
 * to push, then measure for each set once it is sent.
 */
export class IngestFrames {
  /** A frame's duration in the 90 kHz RTP clock. */
  readonly ticksPerFrame: number;
  private readonly sets: RenditionFrames;
  private readonly reference: ReferenceReader | null = null;
  /** By rendition; empty when not measured. */
  private readonly analyzers: QualityAnalyzer[] = [];
  /** The ingest's runs so far: the reference reader and the analyzers pair each run's planes and frames. */
  private runs = 0;
  private readonly drops = noQualityDrops();

  constructor(o: IngestFramesOptions) {
    const { width, height, frameRate } = o.encode;
    this.ticksPerFrame = Math.round(90000 / frameRate);
    this.sets = new RenditionFrames(1 + o.renditions.length, this.ticksPerFrame);
    const m = o.measure;
    if (!m) return;
    const queueLimit = m.queueLimitMs === undefined ? {} : { queueLimitMs: m.queueLimitMs };
    const reference = new ReferenceReader({ width, height, frameRate, ...queueLimit, log: m.log, drops: this.drops });
    this.reference = reference;
    this.analyzers = [undefined, ...o.renditions].map(
      (lower, index) =>
        new QualityAnalyzer({
          width,
          height,
          ...(lower ? { rendition: { index, width: lower.width, height: lower.height } } : {}),
          frameRate,
          reference,
          onRows: (rows) => m.onRows(index, rows),
          log: m.log.child({ rendition: index }),
          ...queueLimit,
          drops: this.drops,
        }),
    );
  }

  /** Whether quality is measured here (the ingest's 'reference' is to be listened to). */
  get measured(): boolean {
    return this.reference !== null;
  }

  /** Planes the reference reader has read and dropped (null: not measured). */
  get referencePlanes(): { read: number; dropped: number } | null {
    return this.reference?.planes ?? null;
  }

  /** Planes the measurement dropped unscored so far (the reader and every analyzer's thread, across their restarts), by where; all 0 when not measured. */
  get qualityDrops(): Readonly<QualityDrops> {
    return this.drops;
  }

  /** The stream index of the current run's pts 0. */
  get runStartIndex(): number {
    return this.sets.runStartIndex;
  }

  /** A new ingest run: its pts count from 0 again, its indexes go on after the last. */
  onRun(): void {
    this.sets.newRun();
    this.runs++;
    for (const a of this.analyzers) a.newRun(this.runs);
  }

  /** The current run's reference pipe (its read end), emitted right after its 'run'. */
  onReference(fd: number): void {
    this.reference?.read(this.runs, fd);
  }

  /** A rendition's frame; returns the sets it completes. Throws when the frame's VP8 header cannot be read. */
  push(rendition: number, data: Uint8Array, pts: number): FrameSet[] {
    return this.sets.push(rendition, data, pts);
  }

  /** A set's frames once the viewers have them: measuring quality never delays a frame. */
  measure(frames: readonly LayeredFrame[], pts: number): void {
    this.analyzers.forEach((a, r) => a.onFrame(frames[r]!, pts));
  }

  /** After the ingest is closed. */
  close(): void {
    for (const a of this.analyzers) a.close();
    this.reference?.close();
  }
}
