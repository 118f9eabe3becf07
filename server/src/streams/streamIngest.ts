import type { EventEmitter } from 'node:events';
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { IngestEvents, IngestStatus } from '../ingest/ffmpegIngest';
import type { Publisher } from '../live/publisher';

/** Where a stream's frames come from: FFmpeg and the encoders here (FfmpegIngest), or an edge's pipe from its origin. */
export interface StreamIngest extends EventEmitter<IngestEvents> {
  readonly currentStatus: IngestStatus;
  readonly currentPublisher: Publisher | null;
  start(): void;
  close(): void;
  requestKeyframe(rendition: number): void;
  attachPublisher(p: Publisher): void;
  detachPublisher(reason: string): void;
}

/**
 * An edge's stream: frames and PSNR table rows (measured at the origin) come from upstream. The rows'
 * `index` is the frame's pts in the ingest's current run, as the ingest's frames count them.
 */
export interface Upstream {
  ingest: StreamIngest;
  onQualityRows(listener: (rendition: number, rows: readonly QualityFrame[]) => void): void;
}
