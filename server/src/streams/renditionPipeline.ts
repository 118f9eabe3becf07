import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { LayeredFrame } from '../layering/layeredFrame';
import { LayerRateMeter } from '../layering/layerRates';
import type { Logger } from '../log';
import { IntelligibilityCache } from '../quality/intelligibilityCache';
import { QualityAnalyzer } from '../quality/qualityAnalyzer';
import { QualityFeed } from '../quality/qualityFeed';
import type { ReferenceSource } from '../quality/referenceReader';
import { KeyframeRequests } from './keyframeRequests';

export interface RenditionPipelineOptions {
  /** 0: the full size. */
  index: number;
  /** The stream's (display) size, at which every rendition's quality is scored. */
  width: number;
  height: number;
  /** A lower rendition's encoded size; undefined for the full size. */
  lower: { width: number; height: number } | undefined;
  frameRate: number;
  /** Least time between keyframes the viewers' requests force (KEYFRAME_MIN_GAP_MS). */
  keyframeMinGapMs: number;
  /** Asks this rendition's encoder for a keyframe. */
  requestKeyframe(): void;
  /** Adds each row's entry time at the server (the players' latency). */
  stampRows(rows: QualityFrame[]): QualityFrame[];
  /** The stream's reference planes: the PSNR table is measured here (absent: an edge's rows come from its origin, added to `qualityFeed`). */
  reference: ReferenceSource | undefined;
  /** The PSNR table's window and its batches: rows kept, a new subscriber's backlog, how often they go out. */
  quality: { windowFrames: number; backlogFrames: number; intervalMs: number };
  log: Logger;
}

/**
 * What a stream keeps for each of its renditions: the viewers' keyframe
 * requests to its encoder (throttled), its layers' measured rates, its PSNR
 * table (analyzer and feed) and, from the table, its expected quality under loss (UPTA).
 */
export class RenditionPipeline {
  readonly keyframes: KeyframeRequests;
  readonly layerRates = new LayerRateMeter();
  /** Its PSNR table's rows, in batches: every rendition's feed has the same indexes. */
  readonly qualityFeed: QualityFeed;
  readonly intelligibility: IntelligibilityCache;
  private readonly quality: QualityAnalyzer | null;

  constructor(o: RenditionPipelineOptions) {
    this.keyframes = new KeyframeRequests(o.keyframeMinGapMs, o.requestKeyframe);
    this.qualityFeed = new QualityFeed(o.quality);
    this.intelligibility = new IntelligibilityCache(() => this.qualityFeed.recentRows());
    this.quality = !o.reference ? null : new QualityAnalyzer({
      width: o.width,
      height: o.height,
      ...(o.lower ? { rendition: { index: o.index, ...o.lower } } : {}),
      frameRate: o.frameRate,
      reference: o.reference,
      onRows: (rows) => this.qualityFeed.add(o.stampRows(rows)),
      log: o.log,
    });
  }

  /** A frame of this rendition, before it goes to the viewers: counted for the keyframe throttle and the layer rates. */
  onFrame(frame: LayeredFrame, nowMs: number): void {
    if (frame.keyframe) this.keyframes.onKeyframe();
    this.layerRates.add(frame.temporalId, frame.bytes, nowMs);
  }

  /** The same frame after the viewers have it: measuring quality never delays a frame. */
  measure(frame: LayeredFrame, pts: number): void {
    this.quality?.onFrame(frame, pts);
  }

  /** A new ingest run (`run`: the stream's count of them): the source's frames start again. */
  newRun(run: number): void {
    this.quality?.newRun(run);
  }

  /** After the encoders are gone (their requests first, so none reaches a closed ingest). */
  close(): void {
    this.quality?.close();
    this.qualityFeed.close();
  }
}
