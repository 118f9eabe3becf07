import type { LayeredFrame } from '../layering/layeredFrame';
import { LayerRateMeter } from '../layering/layerRates';
import { IntelligibilityCache } from '../quality/intelligibilityCache';
import { QualityFeed } from '../quality/qualityFeed';
import { KeyframeRequests } from './keyframeRequests';

export interface RenditionPipelineOptions {
  /** Least time between keyframes the viewers' requests force (KEYFRAME_MIN_GAP_MS). */
  keyframeMinGapMs: number;
  /** Asks this rendition's encoder for a keyframe. */
  requestKeyframe(): void;
  /** The PSNR table's window and its batches: rows kept, a new subscriber's backlog, how often they go out. */
  quality: { windowFrames: number; backlogFrames: number; intervalMs: number };
}

/**
 * What a stream keeps for each of its renditions: the viewers' keyframe
 * requests to its encoder (throttled), its layers' measured rates, its PSNR
 * table's feed (rows measured by the stream's IngestFrames, or an edge's from
 * its origin) and, from the table, its expected quality under loss (UPTA).
 */
export class RenditionPipeline {
  readonly keyframes: KeyframeRequests;
  readonly layerRates = new LayerRateMeter();
  /** Its PSNR table's rows, in batches: every rendition's feed has the same indexes. */
  readonly qualityFeed: QualityFeed;
  readonly intelligibility: IntelligibilityCache;

  constructor(o: RenditionPipelineOptions) {
    this.keyframes = new KeyframeRequests(o.keyframeMinGapMs, o.requestKeyframe);
    this.qualityFeed = new QualityFeed(o.quality);
    this.intelligibility = new IntelligibilityCache(() => this.qualityFeed.recentRows());
  }

  /** A frame of this rendition, before it goes to the viewers: counted for the keyframe throttle and the layer rates. */
  onFrame(frame: LayeredFrame, nowMs: number): void {
    if (frame.keyframe) this.keyframes.onKeyframe();
    this.layerRates.add(frame.temporalId, frame.bytes, nowMs);
  }

  /** After the encoders are gone (their requests first, so none reaches a closed ingest). */
  close(): void {
    this.qualityFeed.close();
  }
}
