import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { FfmpegIngest, type IngestOptions } from '../ingest/ffmpegIngest';
import type { EncodeSettings, Rendition, SourceSpec } from '../ingest/sourceSpec';
import type { Logger } from '../log';
import { IngestFrames } from '../streams/ingestFrames';

export interface MeasuredIngest {
  ingest: FfmpegIngest;
  /** Planes the reference reader has read and dropped so far. */
  referencePlanes(): { read: number; dropped: number };
  close(): void;
}

/**
 * An FFmpeg ingest with every rendition's quality measured by the Stream's own
 * IngestFrames, its events mapped as the Stream maps them, but without viewers:
 * for the tests and benchmarks of the measurement. Rows of a lower rendition
 * carry its number. Started at once.
 */
export function measuredIngest(
  spec: SourceSpec,
  enc: EncodeSettings,
  o: { renditions?: readonly Rendition[]; onRows(rows: QualityFrame[]): void; log: Logger; queueLimitMs?: number; ingest?: IngestOptions },
): MeasuredIngest {
  const renditions = o.renditions ?? [];
  const frames = new IngestFrames({
    encode: enc,
    renditions,
    measure: { onRows: (_, rows) => o.onRows(rows), log: o.log, ...(o.queueLimitMs === undefined ? {} : { queueLimitMs: o.queueLimitMs }) },
  });
  const ingest = new FfmpegIngest(spec, enc, o.log, { ...o.ingest, renditions });
  ingest.on('run', () => frames.onRun());
  ingest.on('reference', (fd) => frames.onReference(fd));
  ingest.on('frame', (f, r) => {
    for (const set of frames.push(r, f.data, Number(f.pts))) frames.measure(set.frames, set.pts);
  });
  ingest.start();
  return {
    ingest,
    referencePlanes: () => frames.referencePlanes!,
    close: () => {
      ingest.close();
      frames.close();
    },
  };
}
