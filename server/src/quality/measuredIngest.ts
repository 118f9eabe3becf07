import type { QualityFrame } from '@pels/shared/protocol/signaling';
import { FfmpegIngest, type IngestOptions } from '../ingest/ffmpegIngest';
import type { EncodeSettings, Rendition, SourceSpec } from '../ingest/sourceSpec';
import { FrameLayering } from '../layering/layeredFrame';
import type { Logger } from '../log';
import { QualityAnalyzer } from './qualityAnalyzer';
import { ReferenceReader } from './referenceReader';

export interface MeasuredIngest {
  ingest: FfmpegIngest;
  reference: ReferenceReader;
  close(): void;
}

/**
 * An FFmpeg ingest with every rendition's quality measured, wired as a Stream
 * wires them (one reference reader, a QualityAnalyzer per rendition, runs counted
 * alike) but without viewers: for the tests and benchmarks of the measurement.
 * Rows of a lower rendition carry its number. Started at once.
 */
export function measuredIngest(
  spec: SourceSpec,
  enc: EncodeSettings,
  o: { renditions?: readonly Rendition[]; onRows(rows: QualityFrame[]): void; log: Logger; queueLimitMs?: number; ingest?: IngestOptions },
): MeasuredIngest {
  const renditions = o.renditions ?? [];
  const queueLimit = o.queueLimitMs === undefined ? {} : { queueLimitMs: o.queueLimitMs };
  const reference = new ReferenceReader({ width: enc.width, height: enc.height, frameRate: enc.frameRate, ...queueLimit, log: o.log });
  const analyzers = [undefined, ...renditions].map(
    (r, index) => new QualityAnalyzer({ width: enc.width, height: enc.height, ...(r ? { rendition: { index, width: r.width, height: r.height } } : {}), frameRate: enc.frameRate, reference, onRows: o.onRows, log: o.log, ...queueLimit }),
  );
  const layerings = analyzers.map(() => new FrameLayering(Math.round(90000 / enc.frameRate)));
  const ingest = new FfmpegIngest(spec, enc, o.log, { ...o.ingest, renditions });
  let runs = 0;
  ingest.on('run', () => {
    runs++;
    for (const a of analyzers) a.newRun(runs);
  });
  ingest.on('reference', (fd) => reference.read(runs, fd));
  ingest.on('frame', (f, r) => analyzers[r]!.onFrame(layerings[r]!.next(f.data), Number(f.pts)));
  ingest.start();
  return {
    ingest,
    reference,
    close: () => {
      ingest.close();
      for (const a of analyzers) a.close();
      reference.close();
    },
  };
}
