/**
 * The player worker's quality bookkeeping: the server's PSNR table and our checksums
 * of it (QualityTables), the score of every displayed period (QualityTracker) and the
 * layer coverage (CoverageTracker), fed by the worker and read by the page.
 */
import type { Color } from '@pels/shared/pels/color';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { TemporalId } from '../player/frameMerger';
import type { QualityStats } from '../player/stats';
import type { QualityUpdate } from '../player/workerProtocol';
import { CoverageTracker, type ArrivalFate } from './coverage';
import type { DisplaySample } from './displayClock';
import { QualityTables } from './qualityTables';
import { QualityTracker } from './qualityTracker';
import { YPlaneChecksum } from './yPlaneChecksum';

/** Frame periods in the coverage strip: 5 s at 30 fps. */
const STRIP_PERIODS = 150;

export class QualityMonitor {
  private readonly tables = new QualityTables();
  private readonly tracker: QualityTracker;
  private readonly coverage = new CoverageTracker();
  private readonly checksum = new YPlaneChecksum();

  constructor(
    frameMs: number,
    private readonly onError: (message: string) => void,
  ) {
    this.tracker = new QualityTracker(this.tables, { frameMs });
  }

  addRows(frames: QualityFrame[]): void {
    this.tables.addRows(frames);
  }

  /** A frame came out of the merger. */
  arrived(index: number, color: Color, tid: TemporalId, bytes: number, fate: ArrivalFate): void {
    this.coverage.arrived(index, color, tid, bytes, fate);
  }

  /** Frame `index` was decoded, in `rendition`; takes ownership of `frame` (a clone: the display keeps its own). */
  decoded(index: number, frame: VideoFrame, rendition: number): void {
    this.coverage.decoded(index);
    this.tables.decodedRendition(index, rendition);
    this.checksum.hash(frame).then(
      (crc) => this.tables.decodedChecksum(index, crc),
      (err: unknown) => this.onError(`checksum of frame ${index}: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  displayed(samples: DisplaySample[]): void {
    for (const s of samples) {
      this.tracker.displayed(s);
      this.coverage.displayed(s);
    }
  }

  stats(): QualityStats {
    const c = this.tables.checksums;
    return { freezes: this.tracker.freezes, checksumMismatches: c.mismatches, checksumsCompared: c.compared, psnr: this.tracker.psnr() };
  }

  update(nowMs: number): QualityUpdate {
    return {
      timeOrigin: performance.timeOrigin,
      samples: this.tracker.resolve(nowMs),
      columns: this.coverage.columns(STRIP_PERIODS, (i) => this.tables.tid(i)),
      usefulBytes: this.coverage.usefulBytes(),
    };
  }
}
