/**
 * The page's record of one viewing session's quality: the displayed-frame samples
 * (for the test hook), the coverage strip, the live chart series and the per-second
 * metrics for export. Fed by the session's events; charts and panels subscribe.
 */
import type { ViewerStateUpdate } from '@pels/shared/protocol/signaling';
import { SeriesBuffer } from '../charts/seriesBuffer';
import { emptyStats, type PlayerStats } from '../player/stats';
import type { QualityUpdate } from '../player/workerProtocol';
import type { ColorBytes, CoverageColumn } from './coverage';
import { MetricsRecorder, metricsCsv, type MetricsRow } from './metricsRecorder';
import type { QualitySample } from './qualityTracker';
import { Ring } from './ring';
import { UtilityMeter, type UtilityReading } from './utilityMeter';

/** Samples kept for qualitySamples(): about 11 minutes at 30 fps. */
const SAMPLE_CAPACITY = 20_000;
/** Chart points kept (the charts show less): 60 s of frames, 60 s of 250 ms updates. */
const PSNR_POINTS = 1800;
const STATE_POINTS = 240;
/** The PSNR moving average spans this many displayed frames (1 s at 30 fps). */
const AVERAGE_FRAMES = 30;

/** What the panels show; a new object on every change. */
export interface QualitySnapshot {
  stats: PlayerStats;
  viewerState: ViewerStateUpdate | undefined;
  columns: CoverageColumn[];
  utility: UtilityReading;
  /** Mean PSNR of the last AVERAGE_FRAMES scored periods. */
  psnrAverage: number | null;
}

export class QualityStore {
  /** Wall-clock start, for the export. */
  readonly startedAt = new Date();
  private readonly startMs = performance.now();
  private readonly samples = new Ring<QualitySample>(SAMPLE_CAPACITY);
  private readonly recorder: MetricsRecorder;
  private readonly utilityMeter = new UtilityMeter();
  private readonly recentPsnr: number[] = [];
  private usefulEnhancementBytes = 0;
  private readonly listeners = new Set<() => void>();
  private readonly secondTimer: ReturnType<typeof setInterval>;
  private snap: QualitySnapshot = {
    stats: emptyStats(),
    viewerState: undefined,
    columns: [],
    utility: { recent: null, session: null },
    psnrAverage: null,
  };
  /** x: seconds since the session started. psnr: [per frame, moving average]. */
  readonly psnr = new SeriesBuffer(2, PSNR_POINTS);
  /** [MKC rate, sent rate (kb/s), gamma]. */
  readonly rate = new SeriesBuffer(3, STATE_POINTS);
  /** Per-color loss of the last receiver report: [green, yellow, red]. */
  readonly loss = new SeriesBuffer(3, STATE_POINTS);
  /** Frames decoded per second: [TID 0, TID 1, TID 2, all]. */
  readonly fps = new SeriesBuffer(4, STATE_POINTS);

  constructor() {
    this.recorder = new MetricsRecorder(this.startMs);
    this.secondTimer = setInterval(() => this.endOfSecond(), 1000);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): QualitySnapshot => this.snap;

  /** Seconds since the session started: the charts' x axis. */
  nowX(): number {
    return this.x(performance.now());
  }

  /** The displayed-frame samples, `t` on this page's performance.now() clock. */
  qualitySamples(): QualitySample[] {
    return this.samples.toArray().map((s) => ({ ...s }));
  }

  onQuality(update: QualityUpdate): void {
    // Sample times are on the worker's clock, which started at another instant.
    const shift = update.timeOrigin - performance.timeOrigin;
    const samples = update.samples.map((s) => ({ ...s, t: s.t + shift }));
    for (const s of samples) {
      this.samples.push(s);
      if (s.psnr !== null) {
        this.recentPsnr.push(s.psnr);
        if (this.recentPsnr.length > AVERAGE_FRAMES) this.recentPsnr.shift();
      }
      this.psnr.push(this.x(s.t), [s.psnr, average(this.recentPsnr)]);
    }
    this.recorder.samples(samples);
    this.usefulEnhancementBytes = update.usefulBytes.yellow + update.usefulBytes.red;
    this.update({ columns: update.columns, psnrAverage: average(this.recentPsnr) });
  }

  onStats(stats: PlayerStats): void {
    const x = this.x(performance.now());
    const f = stats.fps;
    this.fps.push(x, [f.tid0, f.tid1, f.tid2, f.total]);
    const v = this.snap.viewerState;
    this.rate.push(x, [v?.rateKbps ?? null, v?.sentKbps ?? null, v?.gamma ?? null]);
    this.loss.push(x, [v?.perColor.green.recentLoss ?? null, v?.perColor.yellow.recentLoss ?? null, v?.perColor.red.recentLoss ?? null]);
    this.update({ stats });
  }

  onViewerState(viewerState: ViewerStateUpdate): void {
    this.update({ viewerState });
  }

  /** Payload bytes received per color (WebRTC stats): the utility's denominator. */
  onReceivedBytes(bytes: ColorBytes): void {
    this.utilityMeter.add(performance.now(), bytes.yellow + bytes.red, this.usefulEnhancementBytes);
    this.update({ utility: this.utilityMeter.reading() });
  }

  metricsRows(): MetricsRow[] {
    return this.recorder.rows();
  }

  metricsCsv(): string {
    return metricsCsv(this.recorder.rows());
  }

  close(): void {
    clearInterval(this.secondTimer);
    this.listeners.clear();
  }

  private endOfSecond(): void {
    const { stats, viewerState, utility } = this.snap;
    this.recorder.endOfSecond(performance.now(), { stats, viewerState, utility: utility.recent });
  }

  private x(pageMs: number): number {
    return (pageMs - this.startMs) / 1000;
  }

  private update(patch: Partial<QualitySnapshot>): void {
    this.snap = { ...this.snap, ...patch };
    for (const l of this.listeners) l();
  }
}

function average(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}
