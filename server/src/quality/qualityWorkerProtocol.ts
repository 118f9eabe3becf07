/**
 * Messages between the server's main thread and the quality worker thread, which
 * turns planes into PSNR table rows (psnrTable.ts). Planes are transferred, not copied.
 */
import type { QualityFrame } from '@pels/shared/protocol/signaling';
import type { PlaneSize } from './planeScale';
import type { TemporalId } from './psnrTable';

export type ToQualityWorker =
  /** The scaled source frame `index`, Y plane. */
  | { type: 'source'; index: number; plane: Uint8Array }
  /** The server's decode of frame `index`, Y plane; `scale`: a lower rendition, scored scaled up to the source's size. */
  | { type: 'decoded'; index: number; tid: TemporalId; plane: Uint8Array; scale?: { from: PlaneSize; to: PlaneSize } };

export type FromQualityWorker = { type: 'rows'; frames: QualityFrame[] };
